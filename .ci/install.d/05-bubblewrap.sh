# bubblewrap (Debian): the OS sandbox every process agentv starts for a case runs in
# (providers/process/sandbox.py); the sandbox tests and the injection matrix run the real bwrap.
apt_install bwrap bubblewrap
