"""Which arguments of an interpreter (``python3``, ``perl``, ``awk``, ``sh``…) are its code,
its options, its script file, and which are data (what follows the code or script)."""
from __future__ import annotations

from agentv.providers.process.programs import CODE_MODULES, SHELL, Interpreter
from agentv.providers.process.shape_types import DATA, Role, Shape
from agentv.providers.process.shape_types import refuse as _refuse


def interpreter_roles(words: list[str], cmd: int, name: str, spec: Interpreter,
                 found: Shape) -> None:
    """``python3 [options] (-c CODE | -m MOD | SCRIPT | -) [args…]`` and its kin. Options
    agentv does not know may take a value: past one, only a code flag makes what follows
    certain."""
    fix = (f"pass {{P}} as its own argument after the code or script and read it there "
           f"({spec.hint}), or read $AGENTV_PROMPT from the environment")
    opts = Role("refuse", f"among {name}'s options, where it could be code or change what "
                f"{name} runs", fix)
    code = Role("refuse", f"inside {name}'s code argument, where it would run as code", fix)
    script_mode = stdin_mode = program_file = unsure = argv_code = False
    i = cmd + 1
    while i < len(words):
        word = words[i]
        long_name = word.split("=", 1)[0]
        if word in ("--", "-") or word[:1] not in ("-+" if spec is SHELL else "-") or len(
                word) < 2:
            break
        found.roles[i] = opts
        if word.startswith("--") or (word.startswith("-") and word in spec.long_code):
            if long_name in spec.long_code:
                return _after_code(found, words, i if "=" in word else i + 1, code, spec,
                                   argv_code, name)
            if long_name in spec.long_valued and "=" not in word:
                _refuse(found, i + 1, i + 2, opts.why, fix)
                i += 1
            elif long_name not in spec.long_flags and "=" not in word:
                unsure = True
            i += 1
            continue
        letters = word[1:]
        for j, letter in enumerate(letters):
            rest = letters[j + 1:]
            if letter in spec.code and word[0] == "-":
                return _after_code(found, words, i if rest else i + 1, code, spec, argv_code, name)
            if letter in spec.script:
                script_mode = True
            elif letter in spec.stdin:
                stdin_mode = True
            elif letter in spec.argv_code:
                argv_code = True
            elif letter in spec.module and not unsure:
                module = rest or (words[i + 1] if i + 1 < len(words) else "")
                return _after_module(found, words, i if rest else i + 1, module, name, opts,
                                     fix)
            elif letter in spec.program_file:
                program_file = True
                if not rest:
                    _refuse(found, i + 1, i + 2, opts.why, fix)
                    i += 1
                break
            elif letter in spec.valued:
                if not rest:
                    _refuse(found, i + 1, i + 2, opts.why, fix)
                    i += 1
                break
            elif letter in spec.attached:
                break
            elif letter not in spec.flags:
                unsure = True
                break
        i += 1
    if unsure:
        return _unsure(found, words, i, name, spec, code, argv_code)
    if script_mode:
        if i < len(words):
            found.roles[i] = Role("script", fix=fix)
        _data(found, i + 1, argv_code, name)
        return
    if not spec.first_is_code and (stdin_mode or i >= len(words) or words[i] == "-"):
        what = "script" if spec is SHELL else "code"
        found.stdin_code = f"{name}, which reads its {what} from stdin"
        if i < len(words) and words[i] == "-":
            found.roles[i] = opts
            i += 1
        _data(found, i, argv_code, name)
        return
    if words[i] == "--":
        found.roles[i] = opts
        i += 1
    if program_file:
        return _data(found, i, argv_code, name)
    if spec.first_is_code:
        if i < len(words):
            found.roles[i] = code
        return _operands(found, words, i + 1, spec, argv_code, name)
    elif i < len(words):
        found.roles[i] = Role("refuse", f"the script {name} runs (its file name)", fix)
        i += 1
    _data(found, i, argv_code, name)


def _data(found: Shape, start: int, argv_code: bool, name: str) -> None:
    role = (Role("refuse", f"an operand of {name} -n/-p, which opens 'cmd|' as a command",
                 "read $ENV{AGENTV_PROMPT} in the code instead of passing it as an input file")
            if argv_code else DATA)
    for j in range(start, len(found.roles)):
        found.roles[j] = role


def _after_code(found: Shape, words: list[str], at: int, code: Role, spec: Interpreter,
                argv_code: bool, name: str) -> None:
    """``words[at]`` is code. Past it, a program other than python still reads options: a
    later code flag (``perl -e A -e B``, ``sed -e A -e B``) adds more code."""
    last = at
    if not spec.argv_after_code:
        for j in range(at + 1, len(words)):
            word = words[j]
            cluster = word[:2] != "--" and word[:1] == "-" and word[1:].isalpha()
            if word.split("=", 1)[0] in spec.long_code or (
                    cluster and any(c in spec.code for c in word[1:])):
                last = j + 1
            argv_code = argv_code or (cluster and any(c in spec.argv_code for c in word[1:]))
    for j in range(at, min(last + 1, len(words))):
        found.roles[j] = code
    _operands(found, words, last + 1, spec, argv_code, name)


def _operands(found: Shape, words: list[str], start: int, spec: Interpreter, argv_code: bool,
              name: str) -> None:
    """Past the code, perl, ruby, node, sed… still read options (a value ``-e CODE`` would be
    code): their data starts after ``--``."""
    if spec.argv_after_code:
        return _data(found, start, argv_code, name)
    end = next((j for j in range(start, len(words)) if words[j] == "--"), len(words))
    _refuse(found, start, end + 1, f"after {name}'s code, where {name} still reads options "
            "(a value starting with - would be one)", f"write -- before {{P}} ({name} … -- {{P}})")
    _data(found, end + 1, argv_code, name)


def _after_module(found: Shape, words: list[str], at: int, module: str, name: str,
                  opts: Role, fix: str) -> None:
    if at < len(words):
        found.roles[at] = Role("refuse", f"the module {name} -m runs", fix)
    if module in CODE_MODULES:
        _refuse(found, at + 1, len(words), f"an argument of {name} -m {module}, which runs "
                "its arguments as code", fix)
    else:
        _data(found, at + 1, False, name)


def _unsure(found: Shape, words: list[str], start: int, name: str, spec: Interpreter,
            code: Role, argv_code: bool) -> None:
    """Past an unknown option: nothing is data until a word that may be the code flag
    (``-c``, ``-ne``, ``--eval``): what follows that is the code, then its arguments."""
    why = (f"after an option of {name} agentv does not know (it may take a value), where "
           "agentv cannot tell code from data")
    for j in range(start, len(words)):
        word = words[j]
        cluster = word[:1] == "-" and word[1:].isalpha() and word[-1] in spec.code
        if cluster or word in spec.long_code:
            _refuse(found, start, j + 1, why, code.fix)
            argv_code = argv_code or (cluster and any(c in spec.argv_code for c in word))
            return _after_code(found, words, j + 1, code, spec, argv_code, name)
    _refuse(found, start, len(words), why, code.fix)
