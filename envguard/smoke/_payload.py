"""Runs INSIDE the target interpreter (``envguard smoke``): one short, real training case, one JSON line.

Usage (one case per process)::

    python _payload.py CASE [--level {1,2,3}] [--device auto|cpu|cuda] [--steps N]
    python -m torch.distributed.run --nproc-per-node=2 ... _payload.py ddp --level 2

CASE is one of amp, ddp, dataloader, determinism, gradcheck, perf, tensorflow, jax, export.

Rules for this file: Python 3.8 syntax, standard library plus torch (TensorFlow or JAX only inside
their own cases, onnx and onnxruntime only inside the export case), nothing from envguard. The LAST line of stdout is exactly one JSON object::

    {"case": str, "status": "passed"|"failed"|"skipped"|"error", "detail": str (one line),
     "metrics": {str: float|null}, "digests": {"name[dtype,device]": sha256 hex of the tensor bytes},
     "device": "cpu"|"cuda:0"|null, "torch": str|null, "framework": "NAME VERSION"|null,
     "info": {str: str} (the GPU that ran: "gpu_name", "gpu_uuid"; ddp: "backend", "nccl"),
     "duration_s": float}

"torch" is the version of the torch the case ran (null for the tensorflow and jax cases, which never
import it); "framework" names the framework the case ran with its version.

The process exits 0 whenever it printed that line (``os._exit``: no framework teardown). Under
torch.distributed.run only LOCAL_RANK 0 prints (one line per node, so every node's envguard gets the
result), and a rank whose case did not pass exits 1, so that its launcher stops at once instead of
waiting at its exit barrier for nodes that are gone. A ddp rank dies with its launcher (Linux
PR_SET_PDEATHSIG), so killing the launcher leaves no worker behind.

Fault injection for envguard's tests, ENVGUARD_SMOKE_INJECT (comma-separated, each ``KIND:CASE``):
``segfault:CASE`` SIGSEGV at the case's start, ``hang:CASE`` sleeps forever, ``exit:ddp`` makes
RANK 1 ``os._exit(1)`` after its first training step, ``workercrash:dataloader`` SIGKILLs a
DataLoader worker mid-epoch, ``nondeterministic:determinism`` adds an op (``put_``) that
deterministic mode rejects, ``badgrad:gradcheck`` adds an op whose backward is wrong,
``mismatch:export`` perturbs the exported program's output, ``paramdiff:ddp`` makes RANK 1 perturb
its parameters after training and ``badreduce:ddp`` makes RANK 1 contribute a wrong element to the
exact all-reduce (both prove that the ddp checks fire), ``workerhang:dataloader`` makes every DataLoader
worker hang in its first item (envguard's Ctrl-C test), ``nocast:amp`` runs the amp modes without autocast.
ENVGUARD_SMOKE_DIST_TIMEOUT (seconds, default 60) bounds every collective of the ddp case.
"""

import argparse
import contextlib
import ctypes
import datetime
import hashlib
import json
import math
import os
import random
import signal
import sys
import time
import traceback

_T0 = time.perf_counter()

CASES = ("amp", "ddp", "dataloader", "determinism", "gradcheck", "perf", "tensorflow", "jax", "export")
_TORCH_CASES = ("amp", "ddp", "dataloader", "determinism", "gradcheck", "perf", "export")
_MIB = 1 << 20
_GIB = 1 << 30


class Outcome(Exception):
    """Ends a case with a status other than "passed" (failed, skipped, or a usage error)."""

    def __init__(self, status, detail):
        Exception.__init__(self, detail)
        self.status = status
        self.detail = detail


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise Outcome("error", "bad arguments: " + message)


class _Ctx:
    """What a case needs: the arguments, torch, the device, and the result being built."""

    def __init__(self, args):
        self.args = args
        self.level = args.level
        self.torch = None
        self.device = None
        self.emit = True  # False on the ranks of a ddp run other than LOCAL_RANK 0
        self.launched = False  # True in a ddp rank under torch.distributed.run
        self.notes = []
        self.result = {
            "case": args.case,
            "status": "error",
            "detail": "",
            "metrics": {},
            "digests": {},
            "device": None,
            "torch": None,
            "framework": None,
            "info": {},
            "duration_s": 0.0,
        }

    @property
    def metrics(self):
        return self.result["metrics"]

    def steps(self, table):
        return self.args.steps if self.args.steps else table[self.level]

    def set_device(self, device):
        self.device = device
        self.result["device"] = "cpu" if device.type == "cpu" else "%s:%d" % (device.type, device.index or 0)
        if device.type == "cuda":
            # the GPU that ran the case, so envguard compares with that GPU's peak (CUDA_VISIBLE_DEVICES, MIG)
            with contextlib.suppress(Exception):
                props = self.torch.cuda.get_device_properties(device)
                self.result["info"]["gpu_name"] = str(props.name)
                uuid = getattr(props, "uuid", None)
                if uuid is not None:
                    self.result["info"]["gpu_uuid"] = str(uuid)

    def sync(self):
        if self.device is not None and self.device.type == "cuda":
            self.torch.cuda.synchronize(self.device)

    def digest(self, name, tensors):
        """sha256 of the raw bytes of ``tensors`` (in order), stored as ``name[dtype,devicetype]``.

        The device is the one the case computed them on (``cpu`` or ``cuda``), not where they are hashed.
        """
        h = hashlib.sha256()
        dtypes = []
        device_type = self.device.type if self.device is not None else "cpu"
        for t in tensors:
            h.update(_tensor_bytes(t))
            dtype = str(t.dtype).replace("torch.", "")
            if dtype not in dtypes:
                dtypes.append(dtype)
        hexdigest = h.hexdigest()
        self.result["digests"]["%s[%s,%s]" % (name, "+".join(dtypes), device_type)] = hexdigest
        return hexdigest


# ---------------------------------------------------------------------------------------------- helpers


def _first_line(exc):
    text = str(exc).strip()
    line = text.splitlines()[0].strip() if text else ""
    return ("%s: %s" % (type(exc).__name__, line) if line else type(exc).__name__)[:500]


def _tensor_bytes(t):
    """The bytes of a tensor as laid out in memory (works for every dtype, needs no numpy)."""
    t = t.detach()
    if t.device.type != "cpu":
        t = t.cpu()
    t = t.contiguous()
    n = t.numel() * t.element_size()
    if n == 0:
        return b""
    return ctypes.string_at(t.data_ptr(), n)


def _seed(torch, seed=0):
    random.seed(seed)
    torch.manual_seed(seed)  # seeds every CUDA device too
    np = sys.modules.get("numpy")
    if np is not None:
        with contextlib.suppress(Exception):
            np.random.seed(seed)


def _injections():
    spec = os.environ.get("ENVGUARD_SMOKE_INJECT", "")
    out = set()
    for item in spec.split(","):
        kind, _, case = item.strip().partition(":")
        if kind and case:
            out.add((kind, case))
    return out


def _die_with_parent():
    """Linux: SIGKILL this process when its parent (the torch.distributed.run agent) dies.

    The agent starts each rank in a session of its own, so killing the agent's process group (a
    timeout, or a node going away) would otherwise leave the ranks running.
    """
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG


def _inject_at_start(case):
    inject = _injections()
    if ("segfault", case) in inject:
        sys.stdout.flush()
        os.kill(os.getpid(), signal.SIGSEGV)
    if ("hang", case) in inject:
        while True:
            time.sleep(3600)


def _resolve_device(ctx, local_rank=0):
    torch = ctx.torch
    want = ctx.args.device
    if want == "cpu":
        ctx.set_device(torch.device("cpu"))
        return ctx.device
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cuda_ok = bool(torch.cuda.is_available())
    if cuda_ok:
        torch.cuda.set_device(local_rank)
        ctx.set_device(torch.device("cuda", local_rank))
        return ctx.device
    why = "; ".join(str(w.message).strip().splitlines()[0] for w in caught if str(w.message).strip())[:300]
    if want == "cuda":
        ctx.set_device(torch.device("cpu"))
        build = ("built for CUDA %s" % torch.version.cuda) if torch.version.cuda else (
            ("built for ROCm %s" % torch.version.hip) if getattr(torch.version, "hip", None) else "a CPU-only build")
        raise Outcome(
            "failed",
            "--device cuda was requested but torch.cuda.is_available() is False (torch %s, %s)%s"
            % (torch.__version__, build, (": " + why) if why else ""),
        )
    if torch.version.cuda and why:
        ctx.notes.append("CUDA build but no usable GPU, ran on CPU: " + why)
    ctx.set_device(torch.device("cpu"))
    return ctx.device


def _autocast(torch, device_type, dtype):
    if dtype is None:
        return contextlib.nullcontext()
    if hasattr(torch, "autocast"):
        return torch.autocast(device_type=device_type, dtype=dtype)
    if device_type == "cuda":
        return torch.cuda.amp.autocast(dtype=dtype)
    return torch.cpu.amp.autocast(dtype=dtype)


def _grad_scaler(torch, device_type="cuda"):
    """A GradScaler for ``device_type``, or None where this torch has none for it (CPU: torch >= 2.3)."""
    # NOTE: the default initial scale (2**16) overflows fp16 gradients on the first steps by design and
    # GradScaler then skips them; a short smoke run must not mistake that for a fault, so start lower.
    amp = getattr(torch, "amp", None)
    if amp is not None and hasattr(amp, "GradScaler"):
        try:
            return amp.GradScaler(device_type, init_scale=2.0 ** 10)
        except (TypeError, RuntimeError, AssertionError):
            if device_type != "cuda":
                return None
    if device_type != "cuda":
        return None
    return torch.cuda.amp.GradScaler(init_scale=2.0 ** 10)


def _cpu_fp16_autocast(torch):
    """CPU autocast to float16 works here (torch >= 2.3 with a CPU GradScaler)."""
    if _grad_scaler(torch, "cpu") is None:
        return False
    try:
        with _autocast(torch, "cpu", torch.float16):
            return torch.nn.functional.linear(torch.ones(2, 2), torch.ones(2, 2)).dtype == torch.float16
    except Exception:
        return False


def _bf16_native(torch):
    """bf16 in hardware (sm_80+ or ROCm), not emulated."""
    try:
        return bool(torch.cuda.is_bf16_supported(including_emulation=False))
    except TypeError:
        return bool(torch.cuda.is_bf16_supported())


def _grads_finite(torch, params):
    flags = [torch.isfinite(p.grad).all() for p in params if p.grad is not None]
    return bool(torch.stack(flags).all().item()) if flags else True


def _median(values):
    values = sorted(values)
    n = len(values)
    mid = n // 2
    return values[mid] if n % 2 else 0.5 * (values[mid - 1] + values[mid])


def _mlp(torch, d_in, hidden, d_out):
    nn = torch.nn
    return nn.Sequential(nn.Linear(d_in, hidden), nn.Tanh(), nn.Linear(hidden, d_out))


def _size_label(nbytes):
    if nbytes >= _GIB:
        return "%dGiB" % (nbytes // _GIB)
    if nbytes >= _MIB:
        return "%dMiB" % (nbytes // _MIB)
    return "%dKiB" % (nbytes // 1024)


# ---------------------------------------------------------------------------------------------- amp


#: How far a reduced-precision loss may be from the fp32 one on the same data from the same initial weights,
#: relative to the fp32 loss (fp16 keeps 11 significant bits, bf16 8; an MSE over thousands of outputs
#: averages the rounding out): the first loss (no step taken yet), and the last one after training.
_AMP_RTOL_FIRST = {"fp16": 0.01, "bf16": 0.03}
_AMP_RTOL_FINAL = {"fp16": 0.1, "bf16": 0.2}


def _case_amp(ctx):
    torch = ctx.torch
    dev = _resolve_device(ctx)
    cuda = dev.type == "cuda"
    steps = ctx.steps({1: 1, 2: 50, 3: 300})
    d_in, hidden, d_out, batch = (1024, 4096, 1024, 4096) if cuda else (64, 256, 16, 256)
    nocast = ("nocast", "amp") in _injections()

    _seed(torch)
    x = torch.randn(batch, d_in).to(dev)
    teacher = torch.randn(d_in, d_out) / math.sqrt(d_in)
    y = torch.tanh(x @ teacher.to(dev))

    modes = [("fp32", None)]
    if cuda:
        modes.append(("fp16", torch.float16))
        if _bf16_native(torch):
            modes.append(("bf16", torch.bfloat16))
    else:
        if _cpu_fp16_autocast(torch):
            modes.append(("fp16", torch.float16))
        modes.append(("bf16", torch.bfloat16))

    problems = []
    summary = []
    m = ctx.metrics
    for name, dtype in modes:
        _seed(torch)
        model = _mlp(torch, d_in, hidden, d_out).to(dev)
        params = list(model.parameters())
        opt = torch.optim.Adam(params, lr=1e-3)
        scaler = _grad_scaler(torch, dev.type) if dtype is torch.float16 else None
        cast = None if nocast else dtype
        # untimed warm-up (kernel selection, allocator): forward and backward only, weights untouched; it also
        # checks that autocast really ran the layers in the reduced precision
        with _autocast(torch, dev.type, cast):
            out = model(x)
            torch.nn.functional.mse_loss(out.float(), y).backward()
        opt.zero_grad(set_to_none=True)
        if dtype is not None and out.dtype != dtype:
            problems.append("%s: autocast produced %s outputs, not %s" % (
                name, str(out.dtype).replace("torch.", ""), str(dtype).replace("torch.", "")))
        del out
        losses, times = [], []
        finite = True
        overflow_steps = 0
        for _ in range(steps):
            ctx.sync()
            t0 = time.perf_counter()
            opt.zero_grad(set_to_none=True)
            with _autocast(torch, dev.type, cast):
                loss = torch.nn.functional.mse_loss(model(x).float(), y)
            if scaler is not None:
                scaler.scale(loss).backward()
                scaler.unscale_(opt)  # the gradients stay unscaled after the step: checked below
                scaler.step(opt)
                scaler.update()
            else:
                loss.backward()
                opt.step()
            ctx.sync()
            times.append(time.perf_counter() - t0)
            losses.append(loss.detach().float())
            step_finite = _grads_finite(torch, params)  # outside the timed part
            if scaler is not None:
                overflow_steps += 0 if step_finite else 1
            finite = finite and step_finite
        with torch.no_grad(), _autocast(torch, dev.type, cast):
            losses.append(torch.nn.functional.mse_loss(model(x).float(), y).detach().float())
        trace = torch.stack(losses).cpu()
        first, last = float(trace[0]), float(trace[-1])
        step_ms = 1e3 * (_median(times[1:]) if len(times) > 1 else times[0])
        m["step_ms_" + name] = step_ms
        m["first_loss_" + name] = first
        m["final_loss_" + name] = last
        if not (math.isfinite(first) and math.isfinite(last)) or not bool(torch.isfinite(trace).all()):
            problems.append("%s: loss is not finite (%s)" % (name, last))
        elif not last < first and not (scaler is not None and overflow_steps == steps):
            problems.append("%s: loss did not decrease (%.6g -> %.6g)" % (name, first, last))
        elif name != "fp32":
            for label, ref, rtol in (("first", m["first_loss_fp32"], _AMP_RTOL_FIRST[name]),
                                     ("final", m["final_loss_fp32"], _AMP_RTOL_FINAL[name])):
                rel = abs(m[label + "_loss_" + name] - ref) / max(abs(ref), 1e-12)
                m["%s_loss_rel_diff_%s" % (label, name)] = rel
                if rel > rtol:
                    problems.append("%s: %s loss %.6g is %.1f%% away from fp32's %.6g (tolerance %.0f%%)" % (
                        name, label, m[label + "_loss_" + name], 100 * rel, ref, 100 * rtol))
        if scaler is not None:
            scale = float(scaler.get_scale())
            m["grad_scale_" + name] = scale
            m["overflow_steps_" + name] = float(overflow_steps)
            # Overflowing steps are skipped by GradScaler by design; a fault is a collapsing scale or a run
            # in which no step could be applied.
            if not scale > 1.0:
                problems.append("%s: GradScaler scale collapsed to %g" % (name, scale))
            if overflow_steps == steps and steps >= 5:
                problems.append("%s: every step overflowed, no update was applied" % name)
        elif not finite:
            problems.append("%s: non-finite gradients" % name)
        if name == "fp32":
            ctx.digest("weights", [p.detach() for p in params])
            ctx.digest("losses", [trace])
        else:
            m["speedup_" + name] = m["step_ms_fp32"] / step_ms if step_ms > 0 else 0.0
        summary.append(
            "%s%s %.2f ms/step%s loss %.4g" % (
                name, " + GradScaler" if scaler is not None else "", step_ms,
                "" if name == "fp32" else " (%.2fx)" % m["speedup_" + name], last)
        )
    m["steps"] = float(steps)
    if problems:
        raise Outcome("failed", "; ".join(problems))
    return "%d step(s) on %s: %s; autocast dtypes checked, losses agree with fp32" % (
        steps, ctx.result["device"], ", ".join(summary))


# ---------------------------------------------------------------------------------------------- ddp


def _case_ddp(ctx):
    torch = ctx.torch
    if "RANK" not in os.environ or "WORLD_SIZE" not in os.environ:
        raise Outcome("error", "ddp must run under torch.distributed.run")
    import torch.distributed as dist

    rank = int(os.environ["RANK"])
    world = int(os.environ["WORLD_SIZE"])
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    local_world = int(os.environ.get("LOCAL_WORLD_SIZE", str(world)))
    ctx.emit = local_rank == 0
    ctx.launched = True
    timeout_s = float(os.environ.get("ENVGUARD_SMOKE_DIST_TIMEOUT", "60"))
    if not dist.is_available():
        raise Outcome("failed", "torch.distributed is not available in this torch build")

    want = ctx.args.device
    gpus = torch.cuda.device_count() if want != "cpu" and torch.cuda.is_available() else 0
    use_nccl = gpus >= local_world and dist.is_nccl_available() if gpus else False
    if want == "cuda" and not use_nccl:
        raise Outcome(
            "failed",
            "--device cuda needs NCCL and one GPU per local rank: %d GPU(s) for %d local ranks, nccl %s"
            % (gpus, local_world, "available" if dist.is_nccl_available() else "not available"),
        )
    if use_nccl:
        torch.cuda.set_device(local_rank)
        ctx.set_device(torch.device("cuda", local_rank))
        backend = "nccl"
        with contextlib.suppress(Exception):
            version = torch.cuda.nccl.version()
            ctx.result["info"]["nccl"] = ".".join(str(v) for v in version) if isinstance(
                version, tuple) else str(version)
    else:
        ctx.set_device(torch.device("cpu"))
        backend = "gloo"
        if gpus:
            ctx.notes.append("a CUDA machine fell back to gloo on the CPU: %d GPU(s) for %d local rank(s), nccl %s"
                             % (gpus, local_world, "available" if dist.is_nccl_available() else "not available"))
    ctx.result["info"]["backend"] = backend
    dev = ctx.device
    inject = _injections()
    exit_rank1 = ("exit", "ddp") in inject and rank == 1

    try:
        dist.init_process_group(backend=backend, timeout=datetime.timedelta(seconds=timeout_s))
    except Exception as exc:
        raise Outcome("failed", "init_process_group(%s) failed: %s" % (backend, _first_line(exc))) from exc

    m = ctx.metrics
    m["world_size"] = float(world)
    try:
        # training: each rank sees its own data; DDP averages the gradients
        from torch.nn.parallel import DistributedDataParallel

        steps = ctx.steps({1: 1, 2: 20, 3: 100})
        _seed(torch)
        model = _mlp(torch, 32, 64, 8).to(dev)
        ddp = DistributedDataParallel(model, device_ids=[local_rank] if use_nccl else None)
        opt = torch.optim.SGD(ddp.parameters(), lr=0.05)
        gen = torch.Generator().manual_seed(1000 + rank)
        x = torch.randn(64, 32, generator=gen)
        teacher = torch.randn(32, 8, generator=torch.Generator().manual_seed(7)) / math.sqrt(32)
        x, y = x.to(dev), torch.tanh(x @ teacher).to(dev)
        losses = []
        for step in range(steps):
            opt.zero_grad(set_to_none=True)
            loss = torch.nn.functional.mse_loss(ddp(x), y)
            loss.backward()
            opt.step()
            losses.append(loss.detach())
            if step == 0 and exit_rank1:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(1)
        if ("paramdiff", "ddp") in inject and rank == 1:
            with torch.no_grad():
                next(model.parameters()).add_(1e-3)
        final = torch.stack(losses)[-1].reshape(1).clone()
        dist.broadcast(final, src=0)  # every node reports rank 0's loss
        m["final_loss_rank0"] = float(final)

        problems = []
        # parameters identical on every rank: elementwise MAX == MIN across ranks
        flat = torch.cat([p.detach().reshape(-1).float() for p in model.parameters()])
        hi, lo = flat.clone(), flat.clone()
        dist.all_reduce(hi, op=dist.ReduceOp.MAX)
        dist.all_reduce(lo, op=dist.ReduceOp.MIN)
        if not torch.equal(hi, lo):
            spread = float((hi - lo).abs().max())
            problems.append("parameters differ across ranks after %d steps (max spread %.3g)" % (steps, spread))

        # all_reduce of known integers in float64 is exact: sum_r (k+1)(r+1) = (k+1) n(n+1)/2
        base = torch.arange(1, 4097, dtype=torch.float64, device=dev)
        t = base * (rank + 1)
        if ("badreduce", "ddp") in inject and rank == 1:
            t[0] += 1.0
        dist.all_reduce(t)
        expected = base * (world * (world + 1) // 2)
        if not torch.equal(t, expected):
            bad = int((t != expected).sum())
            problems.append("all_reduce(SUM) of known float64 integers is wrong in %d of 4096 elements" % bad)

        # bus bandwidth sweep (nccl-tests: busbw = algbw * 2(n-1)/n, algbw = bytes / time)
        top = {1: _MIB, 2: 64 * _MIB, 3: 256 * _MIB}[ctx.level]
        base_iters = {1: 5, 2: 20, 3: 50}[ctx.level]
        factor = 2.0 * (world - 1) / world
        sizes = []
        size = 1024
        while size <= top:
            sizes.append(size)
            size *= 4 if ctx.level > 1 else 16
        if sizes[-1] != top:
            sizes.append(top)
        best, best_at = 0.0, ""
        timer = torch.zeros(1, dtype=torch.float64, device=dev)
        for nbytes in sizes:
            buf = torch.zeros(nbytes // 4, dtype=torch.float32, device=dev)
            # gloo over TCP is slow for large buffers: fewer iterations there keep level 2 within seconds
            iters = base_iters if use_nccl or nbytes <= _MIB else max(2, base_iters // 4)
            for _ in range(2):
                dist.all_reduce(buf)
            dist.all_reduce(torch.zeros(1, device=dev))  # line the ranks up
            ctx.sync()
            t0 = time.perf_counter()
            for _ in range(iters):
                dist.all_reduce(buf)
            ctx.sync()
            timer.fill_((time.perf_counter() - t0) / iters)
            dist.all_reduce(timer, op=dist.ReduceOp.MAX)
            seconds = float(timer)
            algbw = nbytes / seconds / 1e9 if seconds > 0 else 0.0
            m["algbw_GBps_" + _size_label(nbytes)] = algbw
            if world > 1:
                m["busbw_GBps_" + _size_label(nbytes)] = algbw * factor
            if algbw > best:
                best, best_at = algbw, _size_label(nbytes)
            del buf
        m["algbw_GBps_max"] = best
        m["sweep_top_MiB"] = top / _MIB
        if world > 1:
            m["busbw_GBps_max"] = best * factor
        ctx.digest("weights", [p.detach() for p in model.parameters()])
        dist.all_reduce(torch.zeros(1, device=dev))  # nobody leaves while another rank still needs it
    except Outcome:
        raise
    except Exception as exc:
        raise Outcome("failed", "distributed run failed (%s, rank %d): %s" % (backend, rank, _first_line(exc))) from exc
    finally:
        with contextlib.suppress(Exception):
            dist.destroy_process_group()
    if problems:
        raise Outcome("failed", "; ".join(problems))
    if world > 1:
        bw = "max busbw %.3g GB/s (%s)" % (best * factor, best_at or "-")
    else:
        bw = "algbw %.3g GB/s (%s), busbw n/a at world size 1" % (best, best_at or "-")
    nccl = ctx.result["info"].get("nccl")
    return "%s%s, world %d, %d step(s): parameters identical across ranks, all_reduce exact, %s; sweep up to %s " \
        "(a smoke figure, not a peak bandwidth)" % (backend, " " + nccl if nccl else "", world, steps, bw,
                                                    _size_label(top))


# ---------------------------------------------------------------------------------------------- dataloader


def _make_smoke_dataset():
    """The torch.utils.data.Dataset subclass of the dataloader case, made once torch is imported.

    It is reached as the module attribute ``_SmokeDataset`` (through the module ``__getattr__`` below),
    so spawn/forkserver DataLoader workers, which unpickle it by that name, can rebuild it too.
    """
    import torch

    class _SmokeDataset(torch.utils.data.Dataset):
        """Synthetic images, a little CPU work per item, the same bytes for an index in any process."""

        def __init__(self, n, crash_index=-1):
            self.n = n
            self.crash_index = crash_index

        def __len__(self):
            return self.n

        def __getitem__(self, index):
            return _smoke_item(torch, index, self.crash_index)

    _SmokeDataset.__module__ = __name__
    _SmokeDataset.__qualname__ = "_SmokeDataset"
    return _SmokeDataset


def __getattr__(name):
    """Module attributes made on first use (PEP 562): the dataset class needs torch."""
    if name == "_SmokeDataset":
        cls = _make_smoke_dataset()
        globals()[name] = cls
        return cls
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


_BLUR = []


def _smoke_item(torch, index, crash_index):
    """One synthetic training image with the per-item work of a real augmentation pipeline (~1 ms on one
    core): a 224x224 RGB "decoded" image, a random 192x192 crop, a flip, a resize to 160x160, per-channel
    normalisation and a 5x5 Gaussian blur."""
    worker = torch.utils.data.get_worker_info() is not None
    if index == crash_index and worker:
        os.kill(os.getpid(), signal.SIGKILL)  # workercrash:dataloader
    if worker and ("workerhang", "dataloader") in _injections():
        while True:
            time.sleep(3600)
    F = torch.nn.functional  # noqa: N806 - the usual name
    if not _BLUR:
        k = torch.tensor([1.0, 4.0, 6.0, 4.0, 1.0])
        k = k[:, None] * k[None, :]
        _BLUR.append((k / k.sum()).expand(3, 1, 5, 5).contiguous())
        _BLUR.append(torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1))
        _BLUR.append(torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1))
    kernel, mean, std = _BLUR
    gen = torch.Generator().manual_seed(1234 + index)
    x = torch.rand(3, 224, 224, generator=gen)
    i, j = (int(v) for v in torch.randint(0, 33, (2,), generator=gen))
    x = x[:, i:i + 192, j:j + 192]
    if index % 2:
        x = torch.flip(x, dims=(2,))
    x = F.interpolate(x.unsqueeze(0), size=(160, 160), mode="bilinear", align_corners=False)
    x = F.conv2d((x - mean) / std, kernel, padding=2, groups=3).squeeze(0)
    return x, index % 10


def _shutdown_loader(loader):
    it = getattr(loader, "_iterator", None)
    if it is not None and hasattr(it, "_shutdown_workers"):
        with contextlib.suppress(Exception):
            it._shutdown_workers()


def _usable_cpus():
    """CPUs this process may run on (the affinity mask: taskset, cgroups cpusets, Slurm), not the host's."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


#: A worker count is recommended only when it beats num_workers=0 by this factor (and the smallest count
#: within _NEAR_BEST of the best is the one named): below it the difference is run-to-run noise.
_WORKER_MARGIN = 1.2
_NEAR_BEST = 0.9


def _case_dataloader(ctx):
    torch = ctx.torch
    from torch.utils.data import DataLoader

    dev = _resolve_device(ctx)
    cuda = dev.type == "cuda"
    m = ctx.metrics
    cpus = _usable_cpus()
    m["usable_cpus"] = float(cpus)
    n_items, epochs = {1: (96, 2), 2: (384, 3), 3: (1536, 4)}[ctx.level]
    wanted = {1: [0, 2], 2: [0, 1, 2, 4], 3: [0, 1, 2, 4, 8]}[ctx.level]
    workers = sorted({w for w in wanted if w <= max(cpus, 1)} | {0, 1})
    crash = ("workercrash", "dataloader") in _injections()
    dataset_cls = getattr(sys.modules[__name__], "_SmokeDataset")  # noqa: B009 (module __getattr__)
    dataset = dataset_cls(n_items, crash_index=40 if crash else -1)
    batch_size = 16

    notes = []
    try:
        st = os.statvfs("/dev/shm")  # noqa: S108 (its size is read, nothing is written there)
        free = st.f_frsize * st.f_bavail
        m["dev_shm_GiB"] = st.f_frsize * st.f_blocks / _GIB
        m["dev_shm_free_GiB"] = free / _GIB
        if free < _GIB:
            notes.append("/dev/shm has only %d MiB free (DataLoader workers pass batches through it; "  # noqa: S108
                         "raise it, e.g. docker --shm-size=8g)" % (free // _MIB))
    except OSError:
        pass

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        for i in range(2):  # warm-up: the first calls pay for kernel selection and allocation
            _smoke_item(torch, i, -1)
        t0 = time.perf_counter()
        for i in range(8):
            _smoke_item(torch, i, -1)
        m["item_ms"] = 1e3 * (time.perf_counter() - t0) / 8
    finally:
        torch.set_num_threads(threads)

    _seed(torch)
    problems = []
    reference = None
    rates = {}
    for w in workers:
        kwargs = {"batch_size": batch_size, "shuffle": False, "num_workers": w, "pin_memory": cuda}
        if w > 0:
            kwargs["prefetch_factor"] = 2
            kwargs["persistent_workers"] = True
        loader = DataLoader(dataset, **kwargs)
        h = hashlib.sha256()
        seen = 0
        epoch_rates = []
        try:
            # the workers run with one intra-op thread each (DataLoader sets it); num_workers=0 gets one too,
            # so that the comparison is of workers, not of thread pools
            if w == 0:
                torch.set_num_threads(1)
            for epoch in range(epochs):
                t0 = time.perf_counter()
                count = 0
                for xb, yb in loader:
                    if epoch == 0:
                        h.update(_tensor_bytes(xb))
                        h.update(_tensor_bytes(yb))
                        seen += xb.shape[0]
                    if cuda:
                        xb.to(dev, non_blocking=True)
                        yb.to(dev, non_blocking=True)
                    count += int(xb.shape[0])
                ctx.sync()
                elapsed = time.perf_counter() - t0
                if epoch == 0:
                    m["first_epoch_s_workers_%d" % w] = elapsed
                else:  # the first epoch pays for starting the workers
                    epoch_rates.append(count / elapsed if elapsed > 0 else 0.0)
            rates[w] = _median(epoch_rates)
            m["samples_per_s_workers_%d" % w] = rates[w]
        except Exception as exc:
            if w == 0:
                raise
            problems.append("DataLoader with num_workers=%d failed: %s" % (w, _first_line(exc)))
            continue
        finally:
            torch.set_num_threads(threads)
            _shutdown_loader(loader)
            del loader
        if seen != n_items:
            problems.append("num_workers=%d delivered %d of %d samples" % (w, seen, n_items))
        if w == 0:
            reference = h.hexdigest()
            ctx.result["digests"]["batches[float32+int64,cpu]"] = reference
        elif h.hexdigest() != reference:
            problems.append("num_workers=%d delivered different batches than num_workers=0" % w)
    # release the worker queues' semaphores now: os._exit at the end would leave them to the
    # resource tracker, which then warns about leaks (spawn/forkserver start methods)
    import gc

    gc.collect()

    if cuda:
        nbytes = 64 * _MIB if ctx.level == 1 else 256 * _MIB
        reps = 5 if ctx.level == 1 else 10
        dst = torch.empty(nbytes, dtype=torch.uint8, device=dev)
        for label, pin in (("pageable", False), ("pinned", True)):
            src = torch.empty(nbytes, dtype=torch.uint8, pin_memory=pin).fill_(1)
            dst.copy_(src, non_blocking=pin)
            ctx.sync()
            t0 = time.perf_counter()
            for _ in range(reps):
                dst.copy_(src, non_blocking=pin)
            ctx.sync()
            m["h2d_GBps_" + label] = nbytes * reps / (time.perf_counter() - t0) / 1e9
            del src
        notes.append("H2D %.1f GB/s pinned, %.1f GB/s pageable" % (m["h2d_GBps_pinned"], m["h2d_GBps_pageable"]))

    head = "%d synthetic items (%.1f ms of work each) x %d epoch(s); %s" % (
        n_items, m["item_ms"], epochs, ", ".join("workers=%d %.0f samples/s" % (w, rates[w]) for w in sorted(rates)))
    if rates and 0 in rates:
        best = max(rates, key=lambda k: rates[k])
        if best > 0 and rates[best] >= _WORKER_MARGIN * rates[0]:
            pick = min(w for w in rates if rates[w] >= _NEAR_BEST * rates[best])
            m["recommended_num_workers"] = float(pick)
            head += "; synthetic hint: num_workers=%d (%.1fx num_workers=0 on %d usable CPU(s))" % (
                pick, rates[pick] / rates[0] if rates[0] else 0.0, cpus)
        else:
            head += "; synthetic hint: no worker count beat num_workers=0 by %d%% here" % round(
                100 * (_WORKER_MARGIN - 1))
    elif not rates:
        head = "no DataLoader setting completed"
    if problems:
        raise Outcome("failed", "; ".join(problems + notes))
    return "; ".join([head, *notes])


# ---------------------------------------------------------------------------------------------- determinism


def _nondeterministic_op(message):
    import re

    found = re.search(r"([A-Za-z_][\w:.]*) does not have a deterministic implementation", message)
    if found:
        return found.group(1)
    if "CuBLAS" in message or "CUBLAS" in message:
        return "cuBLAS (CUBLAS_WORKSPACE_CONFIG=%s)" % os.environ.get("CUBLAS_WORKSPACE_CONFIG", "unset")
    return message.strip().splitlines()[0][:200] if message.strip() else "unknown op"


def _det_run(ctx, steps):
    """One seeded training run from scratch of an MLP (cuBLAS) and a small conv net (cuDNN on a GPU):
    returns (weights, losses) as tensors on the device."""
    torch = ctx.torch
    # put_ without accumulate has no deterministic implementation: lets envguard's tests see the failure
    put = ("nondeterministic", "determinism") in _injections()
    nn = torch.nn
    dev = ctx.device
    _seed(torch)
    mlp = nn.Sequential(
        nn.Linear(32, 64), nn.LayerNorm(64), nn.GELU(), nn.Dropout(0.1), nn.Linear(64, 10)
    ).to(dev)
    conv = nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.Conv2d(8, 16, 3, stride=2, padding=1),
        nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10),
    ).to(dev)
    params = list(mlp.parameters()) + list(conv.parameters())
    opt = torch.optim.AdamW(params, lr=1e-2)
    x_all = torch.randn(512, 32)
    y_all = (x_all @ torch.randn(32, 10)).argmax(dim=1)
    img_all = torch.randn(512, 3, 16, 16)
    x_all, y_all, img_all = x_all.to(dev), y_all.to(dev), img_all.to(dev)
    losses = []
    for _ in range(steps):
        idx = torch.randint(0, 512, (64,)).to(dev)  # draws from the seeded global generator
        opt.zero_grad(set_to_none=True)
        loss = (torch.nn.functional.cross_entropy(mlp(x_all[idx]), y_all[idx])
                + torch.nn.functional.cross_entropy(conv(img_all[idx]), y_all[idx]))
        if put:
            torch.zeros(4, device=dev).put_(idx[:2] % 4, torch.ones(2, device=dev))
        loss.backward()
        opt.step()
        losses.append(loss.detach().float())
    return [p.detach().clone() for p in params], torch.stack(losses)


def _digest_of(tensors):
    h = hashlib.sha256()
    for t in tensors:
        h.update(_tensor_bytes(t))
    return h.hexdigest()


def _compare_runs(a, b):
    """None when two (weights, losses) runs are bitwise equal, else what differs."""
    (w1, l1), (w2, l2) = a, b
    same_w = _digest_of(w1) == _digest_of(w2)
    same_l = _digest_of([l1]) == _digest_of([l2])
    if same_w and same_l:
        return None
    diff = max(float((x.double() - y.double()).abs().max()) for x, y in zip(w1, w2))  # noqa: B905 (strict= needs 3.10)
    return "%s; max |dw| = %.3g" % (
        "weights and losses" if not (same_w or same_l) else ("weights" if not same_w else "losses"), diff)


def _case_determinism(ctx):
    torch = ctx.torch
    dev = _resolve_device(ctx)
    steps = ctx.steps({1: 1, 2: 50, 3: 300})
    m = ctx.metrics
    cuda = dev.type == "cuda"
    if cuda:
        torch.backends.cudnn.benchmark = False  # autotuning may pick another algorithm in the second run
    problems = []

    first = _det_run(ctx, steps)
    second = _det_run(ctx, steps)
    differs = _compare_runs(first, second)
    m["default_runs_identical"] = 0.0 if differs else 1.0
    if differs and not cuda:
        problems.append("two identical seeded runs differ (%s)" % differs)
    elif differs:
        # cuDNN's default conv backward may use atomics: PyTorch promises bitwise equality only in
        # deterministic mode, which is checked below
        ctx.notes.append("default mode: two seeded GPU runs differ (%s; cuDNN's nondeterministic "
                         "algorithms), deterministic mode is what is checked" % differs)
    m["final_loss"] = float(first[1][-1])
    m["steps"] = float(steps)

    previous = torch.are_deterministic_algorithms_enabled()
    previous_cudnn = torch.backends.cudnn.deterministic
    det = None
    try:
        torch.use_deterministic_algorithms(True)
        torch.backends.cudnn.deterministic = True
        try:
            det = _det_run(ctx, steps)
            det_again = _det_run(ctx, steps)
        except RuntimeError as exc:
            if "determinis" not in str(exc).lower():
                raise
            problems.append("torch.use_deterministic_algorithms(True): %s has no deterministic implementation"
                            % _nondeterministic_op(str(exc)))
            det = None
    finally:
        torch.use_deterministic_algorithms(previous)
        torch.backends.cudnn.deterministic = previous_cudnn
    if det is not None:
        differs_det = _compare_runs(det, det_again)
        if differs_det:
            problems.append("deterministic mode: two identical seeded runs differ (%s)" % differs_det)
        m["deterministic_matches_default"] = 1.0 if _compare_runs(det, first) is None else 0.0
    # the fingerprint gets the deterministic run's digests: the default mode may differ run to run on a GPU
    weights, losses = det if det is not None else first
    ctx.digest("weights", weights)
    ctx.digest("losses", [losses])
    if problems:
        raise Outcome("failed", "; ".join(problems))
    return "%d step(s) on %s (MLP and Conv2d%s): deterministic mode bitwise identical across two seeded runs%s" % (
        steps, ctx.result["device"], ", cuDNN" if cuda else "",
        "; default mode identical too" if not differs else "")


# ---------------------------------------------------------------------------------------------- gradcheck


def _case_gradcheck(ctx):
    torch = ctx.torch
    F = torch.nn.functional  # noqa: N806 - the usual name
    dev = _resolve_device(ctx)
    _seed(torch)

    def t(*shape):
        return torch.randn(*shape, dtype=torch.float64, device=dev, requires_grad=True)

    ops = [
        ("matmul", torch.matmul, (t(4, 3), t(3, 5))),
        ("conv2d", lambda x, w, b: F.conv2d(x, w, b, padding=1), (t(1, 2, 6, 6), t(3, 2, 3, 3), t(3))),
        ("softmax", lambda x: F.softmax(x, dim=-1), (t(3, 5),)),
        ("log_softmax", lambda x: F.log_softmax(x, dim=-1), (t(3, 5),)),
        ("layer_norm", lambda x, w, b: F.layer_norm(x, (4,), w, b), (t(2, 3, 4), t(4), t(4))),
    ]
    if ("badgrad", "gradcheck") in _injections():

        class _WrongBackward(torch.autograd.Function):
            @staticmethod
            def forward(fctx, x):
                return x * 2.0

            @staticmethod
            def backward(fctx, grad):
                return grad * 3.0

        ops.append(("injected_wrong_backward", _WrongBackward.apply, (t(3),)))
    if ctx.level >= 2:
        ops.append(("cross_entropy", lambda x: F.cross_entropy(x, torch.tensor([0, 2, 1], device=dev)), (t(3, 4),)))
    failures = []
    m = ctx.metrics
    nondet_tol = 1e-12 if dev.type == "cuda" else 0.0
    for name, fn, inputs in ops:
        t0 = time.perf_counter()
        try:
            # on a GPU cuDNN's conv backward may accumulate with atomics: PyTorch's own tests allow 1e-12
            torch.autograd.gradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3, nondet_tol=nondet_tol)
            if ctx.level >= 3:
                torch.autograd.gradgradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3, nondet_tol=nondet_tol)
        except Exception as exc:
            failures.append("%s (%s)" % (name, _first_line(exc)))
        m["ms_" + name] = 1e3 * (time.perf_counter() - t0)
    m["ops_checked"] = float(len(ops))
    if failures:
        raise Outcome("failed", "gradcheck failed for " + "; ".join(failures))
    return "float64 gradcheck%s passed on %s for %s" % (
        " and gradgradcheck" if ctx.level >= 3 else "", ctx.result["device"], ", ".join(n for n, _, _ in ops))


# ---------------------------------------------------------------------------------------------- perf


def _get_tf32(matmul):
    """The fp32 matmul precision setting: ``fp32_precision`` (torch >= 2.9) where it exists, else the legacy
    ``allow_tf32``."""
    import warnings

    if hasattr(matmul, "fp32_precision"):
        return ("precision", matmul.fp32_precision)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ("allow_tf32", matmul.allow_tf32)


def _set_tf32(matmul, value):
    """``value``: True/False (tf32 on/off), or what _get_tf32 returned (restored as it was)."""
    import warnings

    if isinstance(value, tuple):
        kind, setting = value
    elif hasattr(matmul, "fp32_precision"):
        kind, setting = "precision", "tf32" if value else "ieee"
    else:
        kind, setting = "allow_tf32", bool(value)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if kind == "precision":
            matmul.fp32_precision = setting
        else:
            matmul.allow_tf32 = setting


def _case_perf(ctx):
    torch = ctx.torch
    if ctx.args.device == "cpu" or (ctx.args.device == "auto" and not torch.cuda.is_available()):
        ctx.set_device(torch.device("cpu"))
        raise Outcome("skipped", "perf needs a CUDA GPU")
    dev = _resolve_device(ctx)  # --device cuda and torch sees no GPU: failed, never skipped
    m = ctx.metrics
    props = torch.cuda.get_device_properties(dev)
    major, minor = torch.cuda.get_device_capability(dev)
    m["capability"] = float("%d.%d" % (major, minor))
    m["sm_count"] = float(props.multi_processor_count)
    m["total_memory_GiB"] = props.total_memory / _GIB

    # 8192 at every level: smaller products do not reach the tensor-core peak (2048² runs at 50-65 % of the
    # bf16 peak on an H100), and one 8192 bf16 product takes ~1.4 ms on an H200
    n = {1: 8192, 2: 8192, 3: 16384}[ctx.level]
    iters = {1: 5, 2: 20, 3: 50}[ctx.level]
    m["matmul_n"] = float(n)
    matmul = torch.backends.cuda.matmul
    tf32_before = _get_tf32(matmul)
    modes = []
    if _bf16_native(torch):
        modes.append(("bf16", torch.bfloat16, False))
    modes += [("fp16", torch.float16, False), ("fp32", torch.float32, False), ("tf32", torch.float32, True)]
    parts = []
    try:
        for name, dtype, tf32 in modes:
            _set_tf32(matmul, tf32)
            a = torch.randn(n, n, device=dev, dtype=dtype)
            b = torch.randn(n, n, device=dev, dtype=dtype)
            c = torch.empty(n, n, device=dev, dtype=dtype)
            for _ in range(3):
                torch.mm(a, b, out=c)
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            torch.cuda.synchronize(dev)
            start.record()
            for _ in range(iters):
                torch.mm(a, b, out=c)
            end.record()
            torch.cuda.synchronize(dev)
            seconds = start.elapsed_time(end) / 1e3
            tflops = 2.0 * n ** 3 * iters / seconds / 1e12
            if not bool(torch.isfinite(c).all()):
                raise Outcome("failed", "%s matmul of %dx%d random matrices produced non-finite values" % (name, n, n))
            m["tflops_" + name] = tflops
            parts.append("%s %.1f" % (name, tflops))
            del a, b, c
    finally:
        _set_tf32(matmul, tf32_before)

    nbytes = {1: 256 * _MIB, 2: _GIB, 3: 2 * _GIB}[ctx.level]
    src = torch.empty(nbytes, dtype=torch.uint8, device=dev).fill_(1)
    dst = torch.empty_like(src)
    dst.copy_(src)
    reps = 10
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize(dev)
    start.record()
    for _ in range(reps):
        dst.copy_(src)
    end.record()
    torch.cuda.synchronize(dev)
    # a copy reads and writes every byte: count both, as bandwidth tests do
    m["d2d_GBps"] = 2.0 * nbytes * reps / (start.elapsed_time(end) / 1e3) / 1e9
    return "%s (sm_%d%d, %d SMs): matmul %dx%d TFLOP/s %s; device-to-device copy %.0f GB/s (read+write)" % (
        props.name, major, minor, props.multi_processor_count, n, n, ", ".join(parts), m["d2d_GBps"])


# ---------------------------------------------------------------------------------------------- tensorflow


def _case_tensorflow(ctx):
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    try:
        import tensorflow as tf
    except ImportError as exc:
        if getattr(exc, "name", None) == "tensorflow":
            raise Outcome("skipped", "tensorflow is not installed") from exc
        raise
    ctx.result["framework"] = "tensorflow " + str(tf.__version__)
    want = ctx.args.device
    if want == "cpu":
        tf.config.set_visible_devices([], "GPU")
    gpus = tf.config.list_logical_devices("GPU")
    if want == "cuda" and not gpus:
        raise Outcome("failed", "--device cuda was requested but TensorFlow %s sees no GPU" % tf.__version__)
    ctx.result["device"] = "cuda:0" if gpus else "cpu"
    steps = ctx.steps({1: 2, 2: 20, 3: 200})
    keras = tf.keras
    keras.utils.set_random_seed(0)
    policy = "mixed_float16" if gpus else "mixed_bfloat16"
    keras.mixed_precision.set_global_policy(policy)
    try:
        strategy = tf.distribute.MirroredStrategy()
        replicas = int(strategy.num_replicas_in_sync)
        gen = tf.random.Generator.from_seed(0)
        x = gen.normal((1024, 16))
        y = tf.tanh(tf.matmul(x, gen.normal((16, 1)) / 4.0))
        batch = 64 * replicas
        ds = (tf.data.Dataset.from_tensor_slices((x, y)).shuffle(1024, seed=0)
              .batch(batch, drop_remainder=True).repeat().prefetch(tf.data.AUTOTUNE))
        with strategy.scope():
            model = keras.Sequential([
                keras.Input(shape=(16,)),
                keras.layers.Dense(64, activation="tanh"),
                keras.layers.Dense(1, dtype="float32"),
            ])
            model.compile(optimizer=keras.optimizers.Adam(1e-2), loss="mse")
        first = float(model.evaluate(ds, steps=4, verbose=0))
        t0 = time.perf_counter()
        model.fit(ds, steps_per_epoch=steps, epochs=1, verbose=0, shuffle=False)
        fit_s = time.perf_counter() - t0
        last = float(model.evaluate(ds, steps=4, verbose=0))
    finally:
        keras.mixed_precision.set_global_policy("float32")
    m = ctx.metrics
    m.update({"first_loss": first, "final_loss": last, "fit_s": fit_s, "replicas": float(replicas),
              "steps": float(steps)})
    if not (math.isfinite(first) and math.isfinite(last)):
        raise Outcome("failed", "%s: loss is not finite (%s -> %s)" % (policy, first, last))
    if not last < first:
        raise Outcome("failed", "%s: loss did not decrease (%.6g -> %.6g)" % (policy, first, last))
    return "TensorFlow %s, %s, MirroredStrategy over %d replica(s), %d steps: loss %.4g -> %.4g" % (
        tf.__version__, policy, replicas, steps, first, last)


# ---------------------------------------------------------------------------------------------- jax


def _case_jax(ctx):
    if ctx.args.device == "cpu":
        os.environ["JAX_PLATFORMS"] = "cpu"
    try:
        import jax
        import jax.numpy as jnp
    except ImportError as exc:
        if (getattr(exc, "name", None) or "").split(".")[0] in ("jax", "jaxlib"):
            raise Outcome("skipped", "jax is not installed") from exc
        raise
    ctx.result["framework"] = "jax " + str(jax.__version__)
    backend = jax.default_backend()
    on_gpu = backend in ("gpu", "cuda", "rocm")
    if ctx.args.device == "cuda" and not on_gpu:
        raise Outcome("failed", "--device cuda was requested but jax %s runs on %s" % (jax.__version__, backend))
    ctx.result["device"] = "cuda:0" if on_gpu else "cpu"
    steps = ctx.steps({1: 2, 2: 50, 3: 500})
    k1, k2, k3, k4 = jax.random.split(jax.random.PRNGKey(0), 4)
    x = jax.random.normal(k1, (256, 16))
    y = jnp.tanh(x @ jax.random.normal(k2, (16, 1)) / 4.0)
    params = {"w1": jax.random.normal(k3, (16, 64)) / 4.0, "b1": jnp.zeros(64),
              "w2": jax.random.normal(k4, (64, 1)) / 8.0, "b2": jnp.zeros(1)}
    # commit everything to one device up front: the jitted step's outputs are committed, and a change
    # from uncommitted inputs to committed ones would compile the step a second time
    params, x, y = jax.device_put((params, x, y), jax.devices()[0])

    def loss_fn(p, xb, yb):
        h = jnp.tanh(xb @ p["w1"] + p["b1"])
        return jnp.mean((h @ p["w2"] + p["b2"] - yb) ** 2)

    @jax.jit
    def step(p, xb, yb):
        loss, grads = jax.value_and_grad(loss_fn)(p, xb, yb)
        return jax.tree_util.tree_map(lambda a, g: a - 0.1 * g, p, grads), loss

    t0 = time.perf_counter()
    params, first = step(params, x, y)
    first = float(first)
    compile_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    for _ in range(steps - 1):
        params, _loss = step(params, x, y)
    for leaf in jax.tree_util.tree_leaves(params):
        leaf.block_until_ready()
    step_ms = 1e3 * (time.perf_counter() - t0) / max(1, steps - 1)
    last = float(jax.jit(loss_fn)(params, x, y))
    m = ctx.metrics
    m.update({"first_loss": first, "final_loss": last, "compile_s": compile_s, "steps": float(steps),
              "step_ms": step_ms})
    if not (math.isfinite(first) and math.isfinite(last)):
        raise Outcome("failed", "loss is not finite (%s -> %s)" % (first, last))
    if not last < first:
        raise Outcome("failed", "loss did not decrease (%.6g -> %.6g)" % (first, last))
    return "jax %s on %s, jitted grad step x %d: loss %.4g -> %.4g" % (jax.__version__, backend, steps, first, last)


# ---------------------------------------------------------------------------------------------- export


def _case_export(ctx):
    import importlib
    import inspect
    import tempfile
    import warnings

    torch = ctx.torch
    dev = _resolve_device(ctx)
    with contextlib.suppress(ImportError):
        importlib.import_module("torch.export")  # a submodule: not always imported with torch
    export = getattr(getattr(torch, "export", None), "export", None)
    if export is None:
        raise Outcome("skipped", "torch.export needs torch >= 2.1")
    _seed(torch)
    model = _mlp(torch, 64, 256, 16).to(dev).eval()
    x = torch.randn({1: 16, 2: 64, 3: 256}[ctx.level], 64).to(dev)
    m = ctx.metrics
    problems = []
    with torch.no_grad():
        eager = model(x)
        ctx.digest("output", [eager])
        t0 = time.perf_counter()
        ep = export(model, (x,))
        m["export_s"] = time.perf_counter() - t0
        out = ep.module()(x)
    if ("mismatch", "export") in _injections():
        out = out + 1e-3
    diff = m["max_abs_diff_export"] = float((out - eager).abs().max())
    if not torch.allclose(out, eager, rtol=1e-5, atol=1e-6):
        problems.append("torch.export: the exported program differs from eager (max abs difference %.3g)" % diff)
    parts = ["torch.export on %s matches eager (max abs difference %.3g)" % (ctx.result["device"], diff)]

    try:
        import onnx  # noqa: F401 - torch.onnx writes it; only its presence is checked here
        import onnxruntime as ort
    except ImportError as exc:
        if (getattr(exc, "name", None) or "").split(".")[0] not in ("onnx", "onnxruntime"):
            raise
        parts.append("ONNX parity skipped: onnx/onnxruntime not installed")
    else:
        # the TorchScript exporter: the dynamo one (the default since torch 2.9) also needs onnxscript
        kwargs = {"dynamo": False} if "dynamo" in inspect.signature(torch.onnx.export).parameters else {}
        cpu_x, ref = x.cpu(), eager.cpu()
        try:
            with tempfile.TemporaryDirectory(prefix="envguard-export-") as tmp, warnings.catch_warnings(), \
                    contextlib.redirect_stdout(sys.stderr):
                warnings.simplefilter("ignore")
                path = os.path.join(tmp, "model.onnx")
                torch.onnx.export(model.cpu(), (cpu_x,), path, input_names=["x"], output_names=["y"], **kwargs)
                session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
                got = torch.from_numpy(session.run(None, {"x": cpu_x.numpy()})[0]).float()
        except Exception as exc:
            raise Outcome("failed", "; ".join(problems + ["ONNX export or onnxruntime %s run failed: %s" % (
                ort.__version__, _first_line(exc))])) from exc
        same_shape = got.shape == ref.shape
        diff = m["max_abs_diff_onnx"] = float((got - ref).abs().max()) if same_shape else math.inf
        if not (same_shape and torch.allclose(got, ref, rtol=0.0, atol=1e-4)):
            problems.append("ONNX: onnxruntime %s output differs from eager (%s)" % (
                ort.__version__, "max abs difference %.3g" % diff if same_shape else "shape %s" % list(got.shape)))
        parts.append("ONNX under onnxruntime %s (CPU) matches eager (max abs difference %.3g)" % (
            ort.__version__, diff))
    if problems:
        raise Outcome("failed", "; ".join(problems))
    return "; ".join(parts)


_CASES = {
    "amp": _case_amp,
    "ddp": _case_ddp,
    "dataloader": _case_dataloader,
    "determinism": _case_determinism,
    "gradcheck": _case_gradcheck,
    "perf": _case_perf,
    "tensorflow": _case_tensorflow,
    "jax": _case_jax,
    "export": _case_export,
}


# ---------------------------------------------------------------------------------------------- main


def _parse(argv):
    parser = _Parser(prog="_payload.py", description="envguard smoke payload: one case, one JSON line")
    parser.add_argument("case", choices=CASES)
    parser.add_argument("--level", type=int, choices=(1, 2, 3), default=2)
    parser.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto")
    parser.add_argument("--steps", type=int, default=None)
    args = parser.parse_args(argv)
    if args.steps is not None and args.steps < 1:
        raise Outcome("error", "bad arguments: --steps must be at least 1")
    return args


def _clean(value):
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    return value


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    result = {
        "case": argv[0] if argv and not argv[0].startswith("-") else None,
        "status": "error", "detail": "", "metrics": {}, "digests": {}, "device": None, "torch": None,
        "framework": None, "info": {}, "duration_s": 0.0,
    }
    emit = True
    ctx = None
    try:
        args = _parse(argv)
        ctx = _Ctx(args)
        result = ctx.result
        if args.case == "ddp" and "TORCHELASTIC_RUN_ID" in os.environ:
            _die_with_parent()
        _inject_at_start(args.case)
        if args.case in _TORCH_CASES:
            # cuBLAS reads this when it creates its handle: it must be set before CUDA is initialised. Every
            # torch case's digests enter the fingerprint, so every one gets cuBLAS's deterministic workspace.
            os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
            t0 = time.perf_counter()
            try:
                import torch
            except ImportError as exc:
                if getattr(exc, "name", None) == "torch":
                    raise Outcome("skipped", "torch is not installed in %s" % sys.executable) from exc
                raise
            ctx.torch = torch
            result["torch"] = str(torch.__version__)
            result["framework"] = "torch " + result["torch"]
            result["metrics"]["import_s"] = time.perf_counter() - t0
        try:
            detail = _CASES[args.case](ctx)
        finally:
            emit = ctx.emit
        result["status"] = "passed"
        result["detail"] = "; ".join([detail, *ctx.notes]) if ctx.notes else detail
    except Outcome as out:
        result["status"] = out.status
        notes = ctx.notes if ctx is not None else []
        result["detail"] = "; ".join([out.detail, *notes]) if notes else out.detail
    except Exception as exc:
        traceback.print_exc(file=sys.stderr)
        result["status"] = "error"
        result["detail"] = _first_line(exc)
    result["detail"] = " ".join(str(result["detail"]).split())
    result["duration_s"] = round(time.perf_counter() - _T0, 3)
    if emit:
        sys.stdout.write("\n" + json.dumps(_clean(result), allow_nan=False) + "\n")
    code = 0 if emit or result["status"] != "error" else 1
    if ctx is not None and ctx.launched and result["status"] not in ("passed", "skipped"):
        code = 1  # the launcher stops the other ranks now, not after its exit-barrier timeout
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    main()
