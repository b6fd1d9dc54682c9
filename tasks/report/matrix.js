// The cases × runs matrix, drawn from the JSON in #matrix-data one page at a time (so a
// report of 20,000 cases filters and sorts in milliseconds). Text goes in via textContent.
(function () {
  const data = JSON.parse(document.getElementById('matrix-data').textContent);
  const table = document.getElementById('matrix'), body = table.tBodies[0];
  const box = document.getElementById('filter-matrix');
  const onlyChanged = document.getElementById('only-flips');
  const pager = document.getElementById('matrix-pager');
  const PAGE = 200;
  const rows = data.rows.map(r => ({r: r, text: (r[0] + ' ' + r[1] + ' ' + r[4] + ' ' +
    r[2].map(c => c ? c[1] : 'missing').join(' ')).toLowerCase()}));
  let shown = rows, page = 0, sortKey = null, sortDir = 1;

  function sortValue(r, key) {
    if (key === 'case') return r[0];
    if (key === 'target') return r[1];
    if (key === 'delta') return r[3];
    if (key === 'change') return r[4];
    const c = r[2][key];
    return c ? c[0] : null;
  }
  function cell(tr, text, css) {
    const td = tr.insertCell(); td.textContent = text; if (css) td.className = css; return td;
  }
  function draw() {
    const start = page * PAGE, part = shown.slice(start, start + PAGE);
    const out = document.createElement('tbody');
    for (const {r} of part) {
      const tr = out.insertRow(); if (r[4]) tr.className = 'flip';
      tr.dataset.case = r[0];
      cell(tr, r[0]); if (data.show_target) cell(tr, r[1]);
      r[2].forEach(c => {
        if (!c) { cell(tr, '—'); return; }
        const td = cell(tr, '', 'num ' + c[1]);
        const a = document.createElement('a'); a.href = '#' + c[4];
        a.textContent = c[0].toFixed(3); td.append(a, ' ' + c[1] +
          (c[2] > 1 ? ' (' + c[3] + '/' + c[2] + ' pass)' : ''));
      });
      if (data.compare) {
        cell(tr, r[3] === null ? 'n/a' : (r[3] >= 0 ? '+' : '') + r[3].toFixed(3), 'num');
        cell(tr, r[4], r[4]);
      }
    }
    table.replaceChild(out, table.tBodies[0]);
    const pages = Math.max(1, Math.ceil(shown.length / PAGE));
    pager.querySelector('.where').textContent = shown.length + ' of ' + rows.length +
      ' case(s) · page ' + (page + 1) + ' of ' + pages;
  }
  function apply() {
    const q = box.value.toLowerCase(), changed = onlyChanged && onlyChanged.checked;
    shown = rows.filter(x => (!changed || x.r[4]) && (!q || x.text.includes(q)));
    if (sortKey !== null) {
      shown.sort((a, b) => {
        const x = sortValue(a.r, sortKey), y = sortValue(b.r, sortKey);
        if (x === y) return 0; if (x === null || x === '') return 1;
        if (y === null || y === '') return -1; return (x < y ? -1 : 1) * sortDir;
      });
    }
    page = 0; draw();
  }
  table.querySelectorAll('th').forEach(th => {
    th.classList.add('sortable');
    th.addEventListener('click', () => {
      const key = th.dataset.key === undefined ? null : th.dataset.key;
      const k = /^\d+$/.test(key) ? Number(key) : key;
      sortDir = (sortKey === k && th.dataset.dir === 'asc') ? -1 : 1;
      table.querySelectorAll('th').forEach(o => delete o.dataset.dir);
      th.dataset.dir = sortDir === 1 ? 'asc' : 'desc'; sortKey = k; apply();
    });
  });
  pager.querySelector('.prev').addEventListener('click', () => {
    if (page > 0) { page--; draw(); } });
  pager.querySelector('.next').addEventListener('click', () => {
    if ((page + 1) * PAGE < shown.length) { page++; draw(); } });
  box.addEventListener('input', apply);
  if (onlyChanged) onlyChanged.addEventListener('change', apply);
  window.agentvMatrix = {apply: apply, shown: () => shown.length};
  apply();
})();
