// agentv's viewer (1 of 2: helpers, the runs and run pages; detail.js follows): draws
// the runs, run, case and compare pages from the JSON in #agentv-data. Served by `agentv view` (one page's data per URL) or embedded whole by
// `agentv report` (mode "bundle": every page, addressed by #/...). Case text goes in
// through textContent only; nothing is loaded from the network.
  const D = JSON.parse(document.getElementById('agentv-data').textContent);
  const BUNDLE = D.mode === 'bundle', PAGE = 50, enc = encodeURIComponent;
  const app = document.getElementById('app'), crumbs = document.getElementById('crumbs');
  const V = window.agentvView = {};

  function h(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k.startsWith('on')) e.addEventListener(k.slice(2), v); else e.setAttribute(k, v);
    }
    for (const k of kids.flat(Infinity)) if (k !== null && k !== undefined && k !== false)
      e.append(k instanceof Node ? k : String(k));
    return e;
  }
  const num = (x, d) => (x === null || x === undefined || isNaN(x)) ? 'n/a' : Number(x).toFixed(d === undefined ? 3 : d);
  const pct = x => (x === null || x === undefined) ? 'n/a' : (100 * x).toFixed(1) + '%';
  const usd = x => (x === null || x === undefined) ? 'n/a' : '$' + Number(x).toFixed(4);
  const signed = x => (x === null || x === undefined) ? '' : (x > 0 ? '+' : '') + Number(x).toFixed(3);
  const badge = v => h('span', {class: 'v ' + (v || 'none')}, (v || '—').toUpperCase());
  const clip = (text, cls) => h('div', {class: 'clip ' + (cls || ''), title: text || ''}, text || '');
  const L = {
    runs: () => BUNDLE ? '#/' : '/',
    run: id => BUNDLE ? '#/run/' + enc(id) : '/run/' + enc(id),
    kase: (id, c, t, target) => BUNDLE ? `#/case/${enc(id)}/${enc(c)}/${t}/${enc(target)}`
      : `/run/${enc(id)}/case/${enc(c)}?trial=${t}&target=${enc(target)}`,
    compare: (id, base) => BUNDLE ? `#/compare/${enc(id)}/${enc(base || '')}`
      : `/compare/${enc(id)}` + (base ? '?baseline=' + enc(base) : ''),
  };
  function nav(...parts) {
    crumbs.replaceChildren(h('a', {href: L.runs()}, 'Runs'), ...parts.map(
      p => p[1] ? h('a', {href: p[1]}, '› ' + p[0]) : h('span', {}, '› ' + p[0])));
  }
  function stats(pairs) {
    return h('div', {class: 'stats'}, pairs.filter(p => p).map(
      ([k, v]) => h('span', {}, k + ': ', v instanceof Node ? v : h('b', {}, v))));
  }
  function filterBar(kinds, onChange, placeholder) {
    const state = {kind: 'all', q: ''}, buttons = {};
    const box = h('input', {type: 'search', id: 'search', placeholder: placeholder});
    const count = h('span', {class: 'muted', id: 'shown'});
    const bar = h('div', {class: 'bar', id: 'filters'});
    for (const [kind, label] of kinds) {
      buttons[kind] = h('button', {class: 'f' + (kind === 'all' ? ' on' : ''), 'data-kind': kind,
        onclick: () => set(kind)}, label);
      bar.append(buttons[kind]);
    }
    function set(kind) {
      state.kind = kind;
      for (const [k, b] of Object.entries(buttons)) b.classList.toggle('on', k === kind);
      onChange(state);
    }
    box.addEventListener('input', () => { state.q = box.value.trim().toLowerCase(); onChange(state); });
    bar.append(box, count);
    return {bar, count, set, state, box};
  }
  function pagedTable(table, rows, draw, pager) {
    let shown = 0;
    const body = table.tBodies[0];
    function more() {
      const frag = document.createDocumentFragment();
      for (const r of rows.slice(shown, shown + PAGE)) frag.append(draw(r));
      body.append(frag); shown = Math.min(rows.length, shown + PAGE);
      pager.replaceChildren(shown < rows.length ? h('button', {onclick: more},
        `show ${Math.min(PAGE, rows.length - shown)} more of ${rows.length - shown}`) : '');
    }
    body.replaceChildren(); more();
    if (!pager.dataset.watched && window.IntersectionObserver) {  // scrolling down shows more
      pager.dataset.watched = '1';
      new IntersectionObserver(seen => seen.forEach(e => {
        const b = e.isIntersecting && e.target.querySelector('button'); if (b) b.click();
      }), {rootMargin: '400px'}).observe(pager);
    }
  }

  // ---- runs ----
  function runsPage(data) {
    nav(); document.title = 'agentv · runs';
    const runs = data.runs, suites = [...new Set(runs.flatMap(r => r.suites))].sort();
    const targets = [...new Set(runs.flatMap(r => r.targets))].sort();
    const pick = (id, label, values) => h('select', {id: id}, h('option', {value: ''}, label),
      values.map(v => h('option', {value: v}, v)));
    const suite = pick('suite', 'all suites', suites), target = pick('target', 'all targets', targets);
    const f = filterBar([['all', 'All'], ['error', 'Errors'], ['fail', 'Failures'], ['pass', 'Passing']],
      apply, 'search runs…');
    f.bar.prepend(suite, target);
    const table = h('table', {id: 'runs'}, h('thead', {}, h('tr', {}, ['state', 'run', 'suite',
      'targets', 'cases', 'pass rate', 'failed', 'errors', 'mean', 'cost', 'started', 'time',
      '', ''].map(c => h('th', {}, c)))), h('tbody'));
    const pager = h('div', {class: 'pager'});
    app.replaceChildren(h('h1', {}, `Runs (${runs.length})`), f.bar, table, pager,
      problems(data.problems));
    suite.onchange = target.onchange = apply;
    function row(r) {
      return h('tr', {class: 'row', 'data-run': r.id, onclick: e => { if (e.target.tagName !== 'A') location.href = L.run(r.id); }},
        h('td', {class: 'state ' + r.state}, h('span', {class: 'dot ' + r.state}),
          {error: 'errors', fail: 'failures', pass: 'pass'}[r.state]),
        h('td', {}, h('a', {href: L.run(r.id)}, r.id)), h('td', {}, r.suites.join(', ')),
        h('td', {}, r.targets.join(', ')), h('td', {class: 'num'}, r.cases),
        h('td', {class: 'num'}, pct(r.pass_rate)), h('td', {class: 'num' + (r.fails ? ' amber-t' : '')}, r.fails),
        h('td', {class: 'num' + (r.errors ? ' fail-t' : '')}, r.errors), h('td', {class: 'num'}, num(r.mean)),
        h('td', {class: 'num'}, usd(r.cost_usd)), h('td', {}, (r.started || '').replace('T', ' ').slice(0, 19)),
        h('td', {class: 'num'}, r.seconds === null ? '' : r.seconds + ' s'),
        h('td', {}, h('a', {href: L.compare(r.id)}, 'compare')),
        h('td', {}, r.flow_run_url ? h('a', {href: r.flow_run_url, target: '_blank', rel: 'noopener'}, 'Prefect') : ''));
    }
    function apply() {
      const q = f.state.q, k = f.state.kind;
      const rows = runs.filter(r => (!suite.value || r.suites.includes(suite.value)) &&
        (!target.value || r.targets.includes(target.value)) && (k === 'all' || r.state === k) &&
        (!q || (r.id + ' ' + r.suites.join(' ') + ' ' + r.targets.join(' ')).toLowerCase().includes(q)));
      f.count.textContent = `${rows.length} of ${runs.length} run(s)`;
      pagedTable(table, rows, row, pager);
    }
    apply();
  }
  function problems(list) {
    const items = Object.entries(list || {});
    return items.length ? h('details', {}, h('summary', {}, `${items.length} file(s) not read`),
      h('ul', {}, items.map(([p, m]) => h('li', {}, p + ': ' + m)))) : '';
  }

  // ---- run ----
  const isFail = v => v === 'fail' || v === 'borderline';
  const MATCH = {
    all: () => true, failures: r => r.c.some(c => c && isFail(c.v)),
    errors: r => r.c.some(c => c && c.v === 'error'), passes: r => r.w === 3, changed: r => r.ch,
  };
  function runHeader(run, extra) {
    return [h('h1', {}, h('span', {class: 'dot ' + run.state}), run.id, ' ',
      h('span', {class: 'state ' + run.state}, {error: '— errors', fail: '— failures', pass: '— all pass'}[run.state])),
    stats([['suite', run.suites.join(', ')], ['targets', run.targets.join(', ')], ['cases', String(run.cases)],
      ['pass rate', pct(run.pass_rate)], ['failed', String(run.fails)], ['errors', String(run.errors)],
      ['mean', num(run.mean)], ['cost', usd(run.cost_usd)], ['started', (run.started || 'n/a').replace('T', ' ').slice(0, 19)],
      ['time', run.seconds === null ? 'n/a' : run.seconds + ' s'], ...extra,
      run.flow_run_url ? ['Prefect', h('a', {href: run.flow_run_url, target: '_blank', rel: 'noopener'}, 'flow run')] : null])];
  }
  function runPage(data) {
    const run = data.run, T = data.targets, many = T.length > 1;
    nav([run.id]); document.title = 'agentv · ' + run.id;
    const counts = k => data.rows.filter(MATCH[k]).length;
    const f = filterBar([['all', `All (${data.rows.length})`], ['failures', `Failures (${counts('failures')})`],
      ['errors', `Errors (${counts('errors')})`], ['passes', `Passes (${counts('passes')})`],
      ['changed', `Changed (${counts('changed')})`]], apply, 'search inputs, answers, reasons…');
    const base = data.baseline;
    const extra = [['baseline', base ? h('a', {href: L.compare(run.id, base.id)}, 'compare with ' + base.id) : 'none']];
    const w = caseWidths(T.length);
    const head = [h('th', {style: `width:${w.id}%`}, 'case'), h('th', {style: `width:${w.q}%`}, 'input')];
    T.forEach(t => head.push(h('th', {class: 'tcol', style: `width:${w.v}%`}, many ? t : 'verdict'),
      h('th', {style: `width:${w.a}%`}, many ? 'answer · ' + t : 'answer'),
      h('th', {style: `width:${w.a}%`}, many ? 'why · ' + t : 'why it failed')));
    if (many) head.push(h('th', {style: `width:${w.d}%`}, 'Δ'));
    const table = h('table', {class: 'cases', id: 'cases'}, h('thead', {}, h('tr', {}, head)), h('tbody'));
    const pager = h('div', {class: 'pager'});
    app.replaceChildren(...runHeader(run, extra), f.bar, table, pager,
      h('h2', {}, 'Per evaluator, per target'), evaluatorTable(data), trialsNote(data.trial_stats));
    function cell(r, c, t) {
      if (!c) return [h('td', {class: 'tcol muted'}, '—'), h('td'), h('td')];
      const moved = c.bv && (c.bv === 'pass') !== (c.v === 'pass');
      return [h('td', {class: 'tcol'}, h('a', {href: L.kase(run.id, r.id, r.t, t)}, badge(c.v)),
        h('div', {class: 'num small'}, num(c.s)), moved ? h('div', {class: 'small muted'}, 'was ' + c.bv) : ''),
      h('td', {}, clip(c.a)), h('td', {}, clip(c.r, 'reason' + (c.v === 'error' ? ' error' : '')))];
    }
    function row(r) {
      const worst = r.c.findIndex(c => c && c.v === ({0: 'error', 1: 'fail', 2: 'borderline'}[r.w] || c.v));
      const target = T[worst < 0 ? 0 : worst];
      const tr = h('tr', {class: 'row' + (r.w === 0 ? ' err' : (r.w < 3 ? ' bad' : '')), 'data-case': r.id,
        onclick: e => { if (!e.target.closest('a')) location.href = L.kase(run.id, r.id, r.t, target); }},
      h('td', {class: 'cid'}, h('a', {href: L.kase(run.id, r.id, r.t, target)}, r.id),
        data.trials ? h('div', {class: 'small muted'}, 'trial ' + r.t) : ''),
      h('td', {}, clip(r.q)), r.c.map((c, i) => cell(r, c, T[i])));
      if (many) tr.append(h('td', {class: 'num delta' + (r.d < 0 ? ' neg' : r.d > 0 ? ' pos' : '')}, r.d === null ? '' : signed(r.d)));
      return tr;
    }
    let shown = data.rows;
    function apply() {
      const m = MATCH[f.state.kind], q = f.state.q;
      shown = data.rows.filter(r => m(r) && (!q || r.x.includes(q)));
      f.count.textContent = `${shown.length} of ${data.rows.length} case(s)`;
      pagedTable(table, shown, row, pager);
    }
    V.filter = k => f.set(k);
    V.search = q => { f.box.value = q; f.box.dispatchEvent(new Event('input')); };
    V.shown = () => shown.length;
    apply();
  }
  function caseWidths(k) {
    const fixed = {id: k > 1 ? 10 : 13, q: k > 1 ? 11 : 20, d: k > 1 ? 5 : 0, v: 7};
    return {...fixed, a: (100 - fixed.id - fixed.q - fixed.d - fixed.v * k) / (2 * k)};
  }
  function evaluatorTable(data) {
    const T = data.targets;
    return h('table', {id: 'evaluators'}, h('thead', {}, h('tr', {}, h('th', {}, 'evaluator'),
      T.map(t => h('th', {class: 'num'}, `${t}: mean (pass rate, n)`)),
      T.length > 1 ? h('th', {class: 'num'}, 'Δ mean') : '')),
    h('tbody', {}, data.evaluators.map(e => {
      const d = T.length > 1 && e.cells[0] && e.cells[T.length - 1] ? e.cells[T.length - 1].mean - e.cells[0].mean : null;
      return h('tr', {}, h('td', {}, e.name), e.cells.map(c => h('td', {class: 'num'},
        c ? `${num(c.mean)} (${pct(c.pass_rate)}, ${c.n})` : '—')),
      T.length > 1 ? h('td', {class: 'num delta' + (d < 0 ? ' neg' : d > 0 ? ' pos' : '')}, d === null ? '' : signed(d)) : '');
    })));
  }
  function trialsNote(t) {
    return t ? stats([['trials', `k=${t.k}`], ['pass@1', num(t.pass_at_1)], ['pass@k', num(t.pass_at_k)],
      ['pass^k', num(t.pass_hat_k)], ['disagreeing', String(t.disagreeing.length)]]) : '';
  }

