"""`envguard lock` / `envguard verify`: a LockSpec from a request or an installed environment, resolved by a
real resolver (uv or pip), rendered as requirements.lock.txt, environment.yml, a Dockerfile and
envguard.lock.json; and the drift check against an installed environment."""
