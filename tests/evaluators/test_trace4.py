"""AgentV 4.42.4's trace of an answer, as its code graders read it: the expected values are
what the real AgentV 4.42.4 gave a code grader for this answer (a multi-turn answer with tool
calls, one with an output)."""
from __future__ import annotations

from agentv.evaluators import trace4
from agentv.evaluators.base import EvalContext
from agentv.providers.base import Usage

OUTPUT = [{"role": "assistant", "content": "a",
           "tool_calls": [{"tool": "Read", "input": {"n": 0}, "output": "file"},
                          {"tool": "Bash", "input": {"n": 1}}]},
          {"role": "assistant", "content": "b"}]
AGENTV4 = {'messages': [{'role': 'user', 'content': 'Answer t2.'},
              {'role': 'assistant',
               'content': 'a',
               'tool_calls': [{'tool': 'Read', 'input': {'n': 0}, 'output': 'file'},
                              {'tool': 'Bash', 'input': {'n': 1}}]},
              {'role': 'assistant', 'content': 'b'}],
 'trace_summary': {'event_count': 2,
                   'tool_calls': {'Read': 1, 'Bash': 1},
                   'error_count': 0,
                   'llm_call_count': 2},
 'trace': {'event_count': 2,
           'tool_calls': {'Read': 1, 'Bash': 1},
           'error_count': 0,
           'llm_call_count': 2,
           'messages': [{'role': 'user', 'content': 'Answer t2.'},
                        {'role': 'assistant',
                         'content': 'a',
                         'tool_calls': [{'tool': 'Read', 'input': {'n': 0}, 'output': 'file'},
                                        {'tool': 'Bash', 'input': {'n': 1}}]},
                        {'role': 'assistant', 'content': 'b'}],
           'events': [{'event_id': 'message-0',
                       'ordinal': 0,
                       'type': 'message',
                       'message': {'role': 'user', 'content': 'Answer t2.'},
                       'metadata': {'message_index': 0}},
                      {'event_id': 'message-1',
                       'ordinal': 1,
                       'type': 'message',
                       'message': {'role': 'assistant', 'content': 'a'},
                       'metadata': {'message_index': 1}},
                      {'event_id': 'message-1-tool-0',
                       'parent_event_id': 'message-1',
                       'ordinal': 2,
                       'type': 'tool_call',
                       'tool': {'name': 'Read',
                                'input': {'n': 0},
                                'output': 'file',
                                'status': 'ok'},
                       'metadata': {'message_index': 1, 'tool_index': 0}},
                      {'event_id': 'message-1-tool-0-result',
                       'parent_event_id': 'message-1-tool-0',
                       'ordinal': 3,
                       'type': 'tool_result',
                       'tool': {'name': 'Read', 'output': 'file', 'status': 'ok'},
                       'metadata': {'message_index': 1, 'tool_index': 0}},
                      {'event_id': 'message-1-tool-1',
                       'parent_event_id': 'message-1',
                       'ordinal': 4,
                       'type': 'tool_call',
                       'tool': {'name': 'Bash', 'input': {'n': 1}, 'status': 'ok'},
                       'metadata': {'message_index': 1, 'tool_index': 1}},
                      {'event_id': 'message-2',
                       'ordinal': 5,
                       'type': 'message',
                       'message': {'role': 'assistant', 'content': 'b'},
                       'metadata': {'message_index': 2}},
                      {'event_id': 'final-response',
                       'parent_event_id': 'message-2',
                       'ordinal': 6,
                       'type': 'final_response',
                       'message': {'role': 'assistant', 'content': 'b'},
                       'metadata': {'message_index': 2}}],
           'token_usage': {'input': 5, 'output': 5, 'cached': 3},
           'cost_usd': 0,
           'duration_ms': 100,
           'metadata': {'provider': 'cli', 'target': 'agent', 'eval_case_id': 't2'}}}


def context(**kw) -> EvalContext:
    return EvalContext(eval_id="t2", question="Answer t2.", candidate_answer="b",
                       input_messages=[{"role": "user", "content": "Answer t2."}],
                       output_messages=OUTPUT, usage=Usage(5, 5, 0, 3), latency_ms=100,
                       target="agent", target_provider="cli", **kw)


def test_the_trace_is_agentv4s():
    ctx = context()
    assert trace4.trace_messages(ctx) == AGENTV4["messages"]
    assert trace4.trace_summary(ctx) == AGENTV4["trace_summary"]
    assert trace4.trace(ctx) == AGENTV4["trace"]


def test_a_text_answer_is_one_assistant_message_after_the_input():
    ctx = EvalContext(eval_id="t1", question="q", candidate_answer="  padded  ",
                      input_messages=[{"role": "user", "content": "Hi."},
                                      {"role": "assistant", "content": "Hello."},
                                      {"role": "user", "content": "q"}], latency_ms=119.4)
    messages = trace4.trace_messages(ctx)
    assert messages[-1] == {"role": "assistant", "content": "  padded  "} and len(messages) == 4
    assert trace4.trace_summary(ctx)["llm_call_count"] == 1  # the answer's own messages
    made = trace4.trace(ctx)
    assert made["duration_ms"] == 119 and "token_usage" not in made and "cost_usd" not in made
    assert made["events"][-1]["event_id"] == "final-response"
