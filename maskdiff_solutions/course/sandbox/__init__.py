"""One student kernel's isolation: bubblewrap's settings and command, uid and cgroup leases, the environment. Imports only course/layout.py."""
