"""Probes: facts of a live machine and interpreter; missing is a value, never an exception.

The package imports nothing itself, so that `check` can start the target interpreter
(:mod:`envguard.probes.inspection`) before the probes that wait on it are imported. Running every probe
is :mod:`envguard.probes.collect`; the context they share is :mod:`envguard.probes.base`.
"""
