"""A code grader for the differential suites: reads AgentV 4.x's JSON payload on stdin."""
import json
import sys

mode = sys.argv[1]
payload = json.load(sys.stdin)
output = payload.get("output") or ""
if mode == "json":
    hit = "Paris" in output
    print(json.dumps({"score": 0.75 if hit else 0.1,
                      "assertions": [{"text": "mentions Paris", "passed": hit}],
                      "details": {"criteria": payload.get("criteria")}}))
elif mode == "assertions":
    print(json.dumps({"assertions": [{"text": "has Paris", "passed": "Paris" in output},
                                     {"text": "has Rome", "passed": "Rome" in output},
                                     {"text": "ends with .", "passed": output.endswith(".")}]}))
elif mode == "exit0":
    print("looks fine")
elif mode == "exit1":
    print("not good")
    sys.exit(1)
elif mode == "crash":
    sys.stderr.write("grader crashed\n")
    sys.exit(2)
elif mode == "config":
    needle = (payload.get("config") or {}).get("needle", "")
    print(json.dumps({"score": 1.0 if needle and needle in output else 0.0,
                      "assertions": [{"text": f"has {needle}", "passed": needle in output}]}))
