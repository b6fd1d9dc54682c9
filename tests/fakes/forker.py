#!/usr/bin/env python3
"""An agent (or code judge) that leaves processes behind, for process-tree tests.

  forker.py TAG READY_DIR MODE

Starts two helpers whose command lines carry TAG (so ``ps`` finds them): one in its own
session (``setsid``, out of every process group) and one plain background child; both
inherit stdout and sleep. MODE ``hang``: writes READY_DIR/<role>-<pid> and sleeps.
MODE ``answer``: prints an answer (a code judge's JSON verdict when TAG ends in
``judge``) and exits at once, leaving the helpers holding stdout.
"""
import json
import os
import subprocess
import sys
import time

tag, ready, mode = sys.argv[1:4]
sleeper = [sys.executable, "-c", "import time; time.sleep(300)", tag]
subprocess.Popen(sleeper, start_new_session=True)
subprocess.Popen(sleeper)
if os.fork() == 0:  # a daemon: double fork + setsid, re-parented away from us
    os.setsid()
    if os.fork() == 0:
        os.execv(sys.executable, sleeper)
    os._exit(0)
if mode == "answer":
    print(json.dumps({"score": 1.0}) if tag.endswith("judge") else "the answer", flush=True)
    sys.exit(0)
os.makedirs(ready, exist_ok=True)
open(os.path.join(ready, f"{tag}-{os.getpid()}"), "w").close()
time.sleep(300)
