"""The oracle's code grader (tests/compat/oracle_graders.py): ``oracle_grade.py MODE`` reads
AgentV 4.x's JSON payload on stdin and answers in the way MODE names — a score with
assertions, assertions only, the payload's own shape (one assertion per key: present and not
empty), plain text with an exit code, a crash, the config it was given, details, or output
that is no JSON object."""
import json
import sys

mode = sys.argv[1]
payload = json.load(sys.stdin)
output = payload.get("output")
text = output if isinstance(output, str) else json.dumps(output)
if mode == "score":
    print(json.dumps({"score": round(len(text) % 7 / 6, 3),
                      "assertions": [{"text": "long enough", "passed": len(text) > 5}]}))
elif mode == "assertions":
    print(json.dumps({"assertions": [{"text": "has Paris", "passed": "Paris" in text},
                                     {"text": "ends with .", "passed": text.endswith(".")},
                                     {"text": "not empty", "passed": bool(text)}]}))
elif mode == "payload":
    print(json.dumps({"assertions": [{"text": key, "passed": payload.get(key) not in
                                      (None, "", [], {})} for key in sorted(payload)]}))
elif mode == "text":
    print("fine" if "Paris" in text else "no Paris")
    sys.exit(0 if "Paris" in text else 1)
elif mode == "crash":
    sys.stderr.write("grader crashed\n")
    sys.exit(2)
elif mode == "config":
    config = payload.get("config") or {}
    print(json.dumps({"score": config.get("bar", 0.25),
                      "assertions": [{"text": f"config {sorted(config)}", "passed": True}]}))
elif mode == "details":
    print(json.dumps({"score": 0.5, "assertions": [], "details": {"n": len(text)}}))
else:  # "list": valid JSON, not an object
    print(json.dumps([1, 2, 3]))
