// A custom assertion type (`type: word-count`), found by its file name in .agentv/assertions/
// and run with `bun run` by both programs: AgentV's code-grader payload on stdin, its result
// JSON on stdout (what @agentv/sdk's defineAssertion does, without the SDK package).
const payload = JSON.parse(await Bun.stdin.text());
const words = String(payload.output ?? "").trim().split(/\s+/).filter(Boolean).length;
const minWords = 3;
const pass = words >= minWords;
console.log(JSON.stringify({
  score: pass ? 1.0 : Math.min(words / minWords, 0.9),
  assertions: [{ text: `Output has ${words} words (need >= ${minWords})`, passed: pass }],
}));
