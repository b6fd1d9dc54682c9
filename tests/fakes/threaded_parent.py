#!/usr/bin/env python3
"""A stand-in for agentv's process shape: many threads, agents started from one of them.

  threaded_parent.py TAG READY_DIR THREADS

Starts THREADS idle threads and, from one more thread, ``tests/fakes/forker.py TAG READY_DIR
hang`` under the reaper (``providers.process.supervision.supervised``), then
sleeps. When such a process
is killed with ``kill -9`` its threads exit one after another and the kernel sends the
reaper's parent-death signal at every hop.
"""
import os
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from agentv.providers.process.sandbox import Profile  # noqa: E402
from agentv.providers.process.supervision import supervised  # noqa: E402

tag, ready, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
forker = [sys.executable, os.path.join(os.path.dirname(__file__), "forker.py"), tag, ready, "hang"]
for _ in range(threads):
    threading.Thread(target=time.sleep, args=(300,), daemon=True).start()
scratch = Profile("target", writable=(os.path.dirname(ready),))  # its ready files go there
threading.Thread(target=lambda: (subprocess.Popen(supervised(forker, None, None, scratch),
                                                  start_new_session=True), time.sleep(300)),
                 daemon=True).start()
time.sleep(300)
