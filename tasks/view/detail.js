// agentv's viewer (2 of 2: the case and compare pages, routing). tasks/view/page.py
// puts app.js and this file in one function scope, in this order.
  // ---- case ----
  function pre(text, cls) { return h('pre', {class: cls || ''}, text || ''); }
  function diffPre(lines) {
    return h('pre', {class: 'diff'}, lines.length ? lines.map(l => h('span', {class:
      {'+': 'add', '-': 'del', '@': 'hunk'}[l[0]] || ''}, l + '\n')) : '(the answers are the same)');
  }
  function items(list, cls) { return list.length ? h('ul', {class: 'items ' + cls}, list.map(i => h('li', {}, i))) : ''; }
  function casePage(c) {
    const run = c.run;
    nav([run.id, L.run(run.id)], [c.id + (c.target ? ' · ' + c.target : '')]);
    document.title = `agentv · ${c.id} · ${c.target}`;
    const m = c.meta, cls = c.verdict || 'none';
    const parts = [h('h1', {}, c.id, ' ', badge(c.verdict)),
      h('div', {class: 'banner ' + cls, id: 'verdict'}, `${(c.verdict || '').toUpperCase()} · score ${num(c.score)}`,
        c.reason ? ' — ' + c.reason : ''),
      stats([['target', c.target], ['trial', String(c.trial)], ['latency', num(m.latency_ms, 0) + ' ms'],
        ['tokens', `${m.input_tokens ?? 'n/a'} in / ${m.output_tokens ?? 'n/a'} out`], ['cost', usd(m.cost_usd)],
        ['judge cost', usd(m.judge_cost_usd)], ['attempts', String(m.attempt ?? 'n/a')], ['at', m.timestamp || 'n/a'],
        run.flow_run_url ? ['Prefect', h('a', {href: run.flow_run_url, target: '_blank', rel: 'noopener'}, 'flow run')] : null]),
      c.siblings.length > 1 ? h('div', {class: 'bar'}, 'targets: ', c.siblings.map(s => h('a',
        {href: L.kase(run.id, c.id, c.trial, s.target)}, badge(s.verdict), ' ', s.target, ' ', num(s.score)))) : '',
      c.error ? h('p', {class: 'reason error'}, 'error: ' + c.error) : '',
      h('div', {class: 'grid2'}, h('div', {}, h('h2', {}, 'Answer'), pre(c.answer, 'answer')),
        h('div', {}, h('h2', {}, 'Expected outcome'), pre(c.expected || 'n/a'),
          h('h3', {}, 'Reference answer'), pre(c.reference || 'n/a'))),
      h('h2', {}, 'Evaluators'), evaluatorsOf(c.evaluators),
      c.others.length ? h('h2', {}, 'Beside the other targets and runs') : '',
      c.others.map(o => h('div', {class: 'other'}, h('h3', {}, o.label, ' ', badge(o.verdict), ' ', num(o.score)),
        h('div', {class: 'grid2'}, h('div', {}, h('b', {}, o.label), pre(o.answer)),
          h('div', {}, h('b', {}, `${run.id} · ${c.target}`), pre(c.answer))), diffPre(o.diff))),
      h('h2', {}, 'Conversation'), c.turns.map(t => h('div', {class: 'turn'}, h('div', {class: 'role'}, t.role), pre(t.content))),
      c.outputs.length ? [h('h3', {}, 'Output messages'), c.outputs.map(t => h('div', {class: 'turn'},
        h('div', {class: 'role'}, t.role), pre(t.content)))] : '',
      h('h2', {}, 'Trace'), traceOf(c.trace),
      h('h2', {}, 'File changes'), c.files ? diffPre(c.files.split('\n')) : h('p', {class: 'muted'}, 'No file changes recorded.'),
      c.workspace ? h('p', {}, 'workspace: ' + c.workspace) : '',
      (c.guidelines.length || c.attachments.length) ? [h('h2', {}, 'Files'), h('p', {}, 'guidelines: ' +
        (c.guidelines.join(', ') || 'none') + ' · attachments: ' + (c.attachments.join(', ') || 'none'))] : ''];
    app.replaceChildren(...parts.flat());
  }
  function evaluatorsOf(list) {
    if (!list.length) return h('p', {class: 'muted'}, 'No evaluator results.');
    return h('table', {id: 'case-evaluators'}, h('thead', {}, h('tr', {}, ['evaluator', 'type', 'score', 'verdict',
      'hits', 'misses', 'reasoning'].map(x => h('th', {}, x)))), h('tbody', {}, list.map(e => h('tr', {},
      h('td', {}, e.name), h('td', {}, e.type), h('td', {class: 'num'}, num(e.score)), h('td', {}, badge(e.verdict)),
      h('td', {}, items(e.hits, 'hit')), h('td', {}, items(e.misses, 'miss')),
      h('td', {}, e.reasoning, e.error ? h('div', {class: 'reason error'}, 'error: ' + e.error) : '',
        e.warnings.map(w => h('div', {class: 'amber-t'}, 'warning: ' + w)),
        e.rubric.length ? h('table', {class: 'rubric'}, h('tr', {}, h('th', {}, 'rubric item'), h('th', {}, 'score')),
          e.rubric.map(r => h('tr', {}, h('td', {class: r.ok ? 'hit' : 'miss'}, r.line), h('td', {class: 'num'}, r.score ?? 'n/a')))) : '',
        e.details ? h('details', {}, h('summary', {}, 'details'), pre(e.details)) : '')))));
  }
  function traceOf(t) {
    const s = t.summary;
    const out = [s ? stats([['tool calls', String(s.event_count ?? 0)], ['tools', (s.tool_names || []).join(', ') || 'none'],
      ['LLM calls', String(s.llm_call_count ?? 0)], ['errors', String(s.error_count ?? 0)],
      ['duration', num(s.duration_ms, 0) + ' ms']]) : h('p', {class: 'muted'}, 'No trace recorded for this case.')];
    if (t.events.length) out.push(h('table', {id: 'trace'}, h('thead', {}, h('tr', {}, ['#', 'type', 'tool / model',
      'arguments', 'result', 'ok', 'ms'].map(x => h('th', {}, x)))), h('tbody', {}, t.events.map((e, i) => h('tr', {},
      h('td', {}, i + 1), h('td', {}, e.type), h('td', {}, e.name), h('td', {}, e.arguments ? pre(e.arguments) : ''),
      h('td', {}, e.result ? pre(e.result) : (e.tokens[0] !== null && e.tokens[0] !== undefined ? `${e.tokens[0]} in / ${e.tokens[1]} out tokens` : '')),
      h('td', {class: e.ok ? 'pass-t' : 'fail-t'}, e.ok ? 'ok' : 'failed'), h('td', {class: 'num'}, num(e.ms, 0)))))));
    else if (s) out.push(h('p', {class: 'muted'}, 'Tool calls with arguments and results: run with --include-trace.'));
    return out;
  }

  // ---- compare ----
  function comparePage(c) {
    const run = c.run, base = c.baseline;
    nav([run.id, L.run(run.id)], ['compare']);
    document.title = `agentv · ${run.id} vs ${base ? base.id : '—'}`;
    const head = [h('h1', {}, run.id, ' vs baseline ', base ? base.id : '—')];
    if (c.choices && c.choices.length) {
      const sel = h('select', {id: 'baseline'}, c.choices.map(id => h('option', {value: id, selected: base && id === base.id}, id)));
      sel.onchange = () => { location.href = L.compare(run.id, sel.value); };
      head.push(h('div', {class: 'bar'}, 'baseline: ', sel));
    }
    if (!base || c.problem) { app.replaceChildren(...head, h('p', {class: 'empty'}, c.problem || 'No earlier run of these suites and targets to compare with.')); return; }
    const s = c.summary, g = c.significance, p = c.paired;
    const verdict = g.regression ? h('b', {class: 'fail-t'}, 'REGRESSION (the whole CI is below −' + c.threshold + ')')
      : h('b', {}, 'no significant regression');
    head.push(stats([['matched', String(s.matched)], ['wins', String(s.wins)], ['losses', String(s.losses)], ['ties', String(s.ties)],
      ['mean Δ', signed(s.meanDelta)], ['95% CI', g.ci95 ? `${signed(g.ci95[0])} … ${signed(g.ci95[1])}` : 'n/a'],
      ['sign test p', String(g.sign_test.p_value)], ['McNemar', `${g.mcnemar.pass_to_fail} pass→fail, ${g.mcnemar.fail_to_pass} fail→pass, p ${g.mcnemar.p_value}`],
      ['verdict', verdict]]), stats([['paired Δ sd', num(p.sd)], ['SE', num(p.se)],
      ['clustered SE', p.clustered_se === null || p.clustered_se === undefined ? 'n/a (no shared inputs)' : `${num(p.clustered_se)} (${p.clusters} clusters)`],
      ['minimum detectable effect (80% power)', num(p.mde)], ['unmatched', `${c.unmatched.file1} baseline, ${c.unmatched.file2} run`]]));
    c.trials.forEach((t, i) => { if (t) head.push(stats([[i ? 'run trials' : 'baseline trials', `k=${t.k}`], ['pass@k', num(t.pass_at_k)], ['pass^k', num(t.pass_hat_k)]])); });
    const flips = r => (r.v1 === 'pass') !== (r.v2 === 'pass');
    const M = {all: () => true, loss: r => r.o === 'loss', win: r => r.o === 'win', flip: flips};
    const n = k => c.rows.filter(M[k]).length;
    const f = filterBar([['all', `All (${c.rows.length})`], ['loss', `Regressions (${n('loss')})`], ['win', `Improvements (${n('win')})`],
      ['flip', `Flips (${n('flip')})`]], apply, 'search cases, answers, reasons…');
    const table = h('table', {class: 'cases', id: 'compare'}, h('thead', {}, h('tr', {}, [['case', 12], ['target', 7], ['baseline', 8],
      ['run', 8], ['Δ', 6], ['baseline answer', 19], ['run answer', 19], ['why (run)', 21]].map(([x, wd]) => h('th', {style: `width:${wd}%`}, x)))), h('tbody'));
    const pager = h('div', {class: 'pager'});
    app.replaceChildren(...head, f.bar, table, pager);
    function row(r) {
      const link = L.kase(run.id, r.id, r.t, r.target);
      return h('tr', {class: 'row' + (r.o === 'loss' ? ' bad' : ''), 'data-case': r.id, onclick: e => { if (!e.target.closest('a')) location.href = link; }},
        h('td', {class: 'cid'}, h('a', {href: link}, r.id), r.t ? h('div', {class: 'small muted'}, 'trial ' + r.t) : ''),
        h('td', {}, r.target), h('td', {}, badge(r.v1), h('div', {class: 'num small'}, num(r.s1))),
        h('td', {}, badge(r.v2), h('div', {class: 'num small'}, num(r.s2))),
        h('td', {class: 'num delta' + (r.d < 0 ? ' neg' : r.d > 0 ? ' pos' : '')}, signed(r.d)),
        h('td', {}, clip(r.a1)), h('td', {}, clip(r.a2)), h('td', {}, clip(r.r2, 'reason')));
    }
    let shown = c.rows;
    function apply() {
      const q = f.state.q;
      shown = c.rows.filter(r => M[f.state.kind](r) && (!q || (r.id + ' ' + r.a1 + ' ' + r.a2 + ' ' + r.r2).toLowerCase().includes(q)));
      f.count.textContent = `${shown.length} of ${c.rows.length} case(s), largest drop first`;
      pagedTable(table, shown, row, pager);
    }
    V.filter = k => f.set(k); V.shown = () => shown.length;
    V.search = q => { f.box.value = q; f.box.dispatchEvent(new Event('input')); };
    apply();
  }

  // ---- routing ----
  const PAGES = {runs: runsPage, run: runPage, case: casePage, compare: comparePage};
  function missing(what) { nav(); app.replaceChildren(h('p', {class: 'empty'}, what)); }
  function route() {
    const parts = location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
    const [kind, id] = parts, P = D.pages;
    if (!kind) return runsPage({runs: D.runs, problems: D.problems});
    if (kind === 'run') return P.run[id] ? runPage(P.run[id]) : missing('No such run: ' + id);
    if (kind === 'compare') {
      const c = (P.compare[id] || {})[parts[2] || ''] || (P.compare[id] || {})[''];
      return c ? comparePage(c) : missing('This report holds no comparison for ' + id + '.');
    }
    if (kind === 'case') {
      const c = (P.cases[id] || {})[[parts[2], parts[3], parts[4]].join('\u0001')];
      return c ? casePage(c) : missing('This report does not hold this case in full (it keeps the failures first); open the run with `agentv view`.');
    }
    missing('Unknown page.');
  }
  document.getElementById('home').setAttribute('href', L.runs());
  if (BUNDLE && !location.hash && D.start) history.replaceState(null, '', D.start);
  if (BUNDLE) { window.addEventListener('hashchange', () => { route(); window.scrollTo(0, 0); }); route(); }
  else PAGES[D.page](D.data);
  document.documentElement.dataset.renderedMs = String(Math.round(performance.now()));
  document.documentElement.dataset.rendered = '1';
