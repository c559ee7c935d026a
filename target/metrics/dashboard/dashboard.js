/* dashboard.js — lunlab-target's live dashboard.
 *
 * Reads /metrics.json (the same snapshot /metrics exports) once a second and
 * shows, per array: data reduction (logical / unique / physical), capacity
 * and thresholds, modeled CPU and latency over the last minutes, and the
 * bytes cloned inside the array next to the bytes that crossed the wire;
 * per LU: throughput, IOPS and latency.  Counters are running totals, so
 * every rate is the difference of two readings over the time between them.
 * Charts are uPlot (npm, served by lunlab itself: no internet needed).
 *
 * Every figure shown from a reading carries data-metric (its /metrics name)
 * and data-value (the exact number), so a test can hold the page against
 * /metrics; window.lunlab exposes the charts' data for the same reason. */
(function () {
  'use strict';

  var POLL_MS = 1000;
  var HISTORY = 300; /* readings kept: five minutes */
  var KINDS = ['read', 'write', 'xcopy', 'write_same', 'unmap', 'caw', 'other'];
  var COLORS = ['#1f6feb', '#16a34a', '#c2410c', '#7c3aed', '#0891b2', '#be185d', '#4d7c0f', '#b45309'];

  var state = {
    prev: null,        /* the last reading */
    times: [],         /* reading times (s) of the history */
    arrays: {},        /* name -> { el, charts, hist } */
    luHist: {},        /* lun -> [MiB/s ...] aligned with times */
    luChart: null,
    luChartKeys: '',
    readings: 0
  };
  var charts = {};     /* "array:cpu", "array:latency", "array:copy", "lu:throughput" -> uPlot */

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function fmtBytes(n) {
    var units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
    var i = 0;
    while (Math.abs(n) >= 1024 && i < units.length - 1) { n /= 1024; i++; }
    return (i ? n.toFixed(n < 10 ? 2 : 1) : String(Math.round(n))) + ' ' + units[i];
  }

  function fmtRatio(r) { return r > 0 ? r.toFixed(r >= 100 ? 0 : 3) + ':1' : '—'; }

  function fmtUs(s) {
    if (!(s > 0)) return '—';
    if (s < 1e-3) return (s * 1e6).toFixed(1) + ' µs';
    if (s < 1) return (s * 1e3).toFixed(2) + ' ms';
    return s.toFixed(2) + ' s';
  }

  /* a figure whose text is formatted but whose exact value stays readable */
  function setFigure(node, metric, value, text) {
    node.setAttribute('data-metric', metric);
    node.setAttribute('data-value', String(value));
    node.textContent = text;
  }

  function sumKinds(lu, field) {
    var t = 0;
    KINDS.forEach(function (k) { t += lu.kinds[k][field]; });
    return t;
  }

  function lunsOf(snap, array) {
    return snap.luns.filter(function (l) { return l.array === array; });
  }

  function chartWidth(container) {
    return Math.max(300, container.clientWidth - 8);
  }

  /* log: a logarithmic y axis (latency: microseconds modeled next to milliseconds observed) */
  function makeChart(container, title, series, yFmt, log) {
    var y = log ? { distr: 3 } : { range: function (u, min, max) { return [0, max > 0 ? max * 1.1 : 1]; } };
    var opts = {
      title: title,
      width: chartWidth(container),
      height: 200,
      scales: { x: { time: true }, y: y },
      series: [{}].concat(series.map(function (s, i) {
        return { label: s, stroke: COLORS[i % COLORS.length], width: 2,
                 value: function (u, v) { return v == null ? '—' : yFmt(v); } };
      })),
      axes: [
        { space: 90, incrs: [1, 2, 5, 10, 15, 30, 60, 120, 300],
          values: function (u, vals) { return vals.map(function (v) { return new Date(v * 1000).toLocaleTimeString(); }); } },
        { values: function (u, vals) { return vals.map(yFmt); }, size: 84 }
      ]
    };
    var data = [[]];
    series.forEach(function () { data.push([]); });
    return new uPlot(opts, data, container);
  }

  function arrayCard(a) {
    var card = el('div', 'array');
    card.setAttribute('data-array', a.name);
    var h = el('h2', null, 'array ' + a.name + ' ');
    h.appendChild(el('span', 'profile', a.profile ? '(' + a.profile + ')' : ''));
    card.appendChild(h);
    var figs = el('div', 'figures');
    var defs = [
      ['logical', 'logical', ''], ['unique', 'unique', ''], ['physical', 'physical', ''],
      ['dedup', 'dedup', ' ratio'], ['compression', 'compression', ' ratio'], ['drr', 'data reduction', ' ratio'],
      ['cloned', 'cloned by XCOPY', ''], ['cpu', 'modeled CPU', ''], ['mlat', 'modeled latency', ''],
      ['clock', 'array clock', '']
    ];
    var nodes = {};
    defs.forEach(function (d) {
      var f = el('div', 'figure' + d[2]);
      f.appendChild(el('div', 'label', d[1]));
      nodes[d[0]] = el('div', 'value', '—');
      f.appendChild(nodes[d[0]]);
      figs.appendChild(f);
    });
    card.appendChild(figs);
    var cap = el('div', 'capacity');
    var bar = el('div', 'bar');
    nodes.used = el('div', 'used');
    nodes.threshold = el('div', 'threshold');
    nodes.threshold.hidden = true;
    bar.appendChild(nodes.used);
    bar.appendChild(nodes.threshold);
    cap.appendChild(bar);
    nodes.capLegend = el('div', 'legend', '');
    cap.appendChild(nodes.capLegend);
    card.appendChild(cap);
    var grid = el('div', 'charts');
    var cpuBox = el('div', 'chart'), latBox = el('div', 'chart'), copyBox = el('div', 'chart');
    cpuBox.setAttribute('data-chart', 'cpu');
    latBox.setAttribute('data-chart', 'latency');
    copyBox.setAttribute('data-chart', 'copy');
    grid.appendChild(copyBox);
    grid.appendChild(cpuBox);
    grid.appendChild(latBox);
    card.appendChild(grid);
    document.getElementById('arrays').appendChild(card);
    var pct = function (v) { return v.toFixed(1) + '%'; };
    var mibs = function (v) { return fmtBytes(v) + '/s'; };
    var entry = {
      el: card, nodes: nodes,
      hist: { cpu: [], mlat: [], olat: [], cloned: [], wire: [] },
      boxes: [copyBox, cpuBox, latBox]
    };
    charts[a.name + ':copy'] = makeChart(copyBox, 'copies: bytes cloned vs bytes over the wire',
                                         ['cloned (XCOPY)', 'over the wire'], mibs);
    charts[a.name + ':cpu'] = makeChart(cpuBox, 'modeled CPU busy', ['CPU'], pct);
    charts[a.name + ':latency'] = makeChart(latBox, 'mean latency: modeled (array time) vs observed (wall clock)',
                                            ['modeled', 'observed by the target'], fmtUs, true);
    return entry;
  }

  function push(arr, v) {
    arr.push(v);
    if (arr.length > HISTORY) arr.shift();
  }

  /* rates of one array between two readings */
  function arrayRates(prev, cur, a, dt) {
    var pa = prev.arrays.filter(function (x) { return x.name === a.name; })[0];
    var r = { cpu: null, mlat: null, olat: null, cloned: 0, wire: 0 };
    if (pa && pa.model && a.model) {
      var de = a.model.elapsed_seconds - pa.model.elapsed_seconds;
      var dc = a.model.cpu_seconds - pa.model.cpu_seconds;
      var dn = a.model.commands - pa.model.commands;
      r.cpu = de > 0 && a.model.cores > 0 ? Math.min(100, 100 * dc / (de * a.model.cores)) : 0;
      r.mlat = dn > 0 ? (a.model.latency_sum_seconds - pa.model.latency_sum_seconds) / dn : null;
    }
    var lat = 0, n = 0;
    lunsOf(cur, a.name).forEach(function (l) {
      var p = prev.luns.filter(function (x) { return x.lun === l.lun; })[0];
      if (!p) return;
      r.cloned += ((l.xcopy_covered_bytes || 0) - (p.xcopy_covered_bytes || 0)) / dt;
      r.wire += (sumKinds(l, 'wire_bytes') - sumKinds(p, 'wire_bytes')) / dt;
      lat += sumKinds(l, 'latency_sum_seconds') - sumKinds(p, 'latency_sum_seconds');
      n += sumKinds(l, 'commands') - sumKinds(p, 'commands');
    });
    r.olat = n > 0 ? lat / n : null;
    return r;
  }

  function showArray(entry, a, cur) {
    var n = entry.nodes, c = a.capacity;
    if (c) {
      setFigure(n.logical, 'lunlab_array_logical_bytes', c.logical_bytes, fmtBytes(c.logical_bytes));
      setFigure(n.unique, 'lunlab_array_unique_bytes', c.unique_bytes, fmtBytes(c.unique_bytes));
      setFigure(n.physical, 'lunlab_array_physical_bytes', c.physical_bytes, fmtBytes(c.physical_bytes));
      setFigure(n.dedup, 'lunlab_array_dedup_ratio', c.dedup_ratio, fmtRatio(c.dedup_ratio));
      setFigure(n.compression, 'lunlab_array_compression_ratio', c.compression_ratio, fmtRatio(c.compression_ratio));
      setFigure(n.drr, 'lunlab_array_data_reduction_ratio', c.data_reduction_ratio, fmtRatio(c.data_reduction_ratio));
      var capB = c.capacity_bytes;
      var used = capB ? Math.min(100, 100 * c.used_bytes / capB) : 0;
      n.used.style.width = used + '%';
      n.used.setAttribute('data-metric', 'lunlab_array_used_bytes');
      n.used.setAttribute('data-value', String(c.used_bytes));
      if (c.soft_threshold_bytes && capB) {
        n.threshold.hidden = false;
        n.threshold.style.left = Math.min(100, 100 * c.soft_threshold_bytes / capB) + '%';
      } else {
        n.threshold.hidden = true;
      }
      n.capLegend.textContent = 'physical use ' + fmtBytes(c.used_bytes) + ' of ' +
        (capB ? fmtBytes(capB) + ' (' + used.toFixed(2) + '%)' : 'unlimited capacity') +
        (c.soft_threshold_bytes ? ', soft threshold ' + fmtBytes(c.soft_threshold_bytes) : ', no soft threshold') +
        ', provisioned ' + fmtBytes(c.provisioned_bytes) + ', ' + c.volumes + ' volume(s)' +
        (c.pending_blocks ? ', accounting pending for ' + c.pending_blocks + ' block(s)' : '');
    }
    if (a.model) {
      var m = a.model;
      n.clock.textContent = m.virtual_streams > 0 ? 'virtual (' + m.virtual_streams + ' streams)'
        : m.time_scale > 1 ? 'slow motion x' + m.time_scale
        : m.time_scale === 1 ? 'real time' : 'unpaced';
      n.clock.title = 'modeled figures are in the array model\'s time; with slow motion the target ' +
        'completes each command time_scale times later than the model says';
    }
    var cloned = 0;
    lunsOf(cur, a.name).forEach(function (l) { cloned += l.xcopy_covered_bytes || 0; });
    setFigure(n.cloned, 'lunlab_xcopy_covered_bytes_total', cloned, fmtBytes(cloned));
  }

  function updateCharts(entry, name) {
    var t = state.times, h = entry.hist;
    charts[name + ':copy'].setData([t, h.cloned, h.wire]);
    charts[name + ':cpu'].setData([t, h.cpu]);
    charts[name + ':latency'].setData([t, h.mlat, h.olat]);
  }

  function luRow(tbody, l, p, dt) {
    var tr = document.createElement('tr');
    tr.setAttribute('data-lun', String(l.lun));
    var d = function (f, k) { return p ? (l.kinds[k][f] - p.kinds[k][f]) / dt : 0; };
    var cmds = p ? (sumKinds(l, 'commands') - sumKinds(p, 'commands')) : 0;
    var lat = p && cmds > 0 ? (sumKinds(l, 'latency_sum_seconds') - sumKinds(p, 'latency_sum_seconds')) / cmds : null;
    var mcmds = p && l.model && p.model ? l.model.commands - p.model.commands : 0;
    var mlat = mcmds > 0 ? (l.model.latency_sum_seconds - p.model.latency_sum_seconds) / mcmds : null;
    var cloned = p ? ((l.xcopy_covered_bytes || 0) - (p.xcopy_covered_bytes || 0)) / dt : 0;
    var cells = [
      [String(l.lun)], [l.array || '—'], [l.volume || '—'], [l.profile || '—'],
      [(d('wire_bytes', 'read') / 1048576).toFixed(1), 'num'],
      [(d('wire_bytes', 'write') / 1048576).toFixed(1), 'num'],
      [String(Math.round(cmds / (dt || 1))), 'num'],
      [(cloned / 1048576).toFixed(1), 'num'],
      [(d('wire_bytes', 'xcopy') / 1024).toFixed(1), 'num'],
      [fmtUs(lat), 'num'], [fmtUs(mlat), 'num'],
      [l.mapped_bytes !== undefined ? fmtBytes(l.mapped_bytes) : '—', 'num']
    ];
    cells.forEach(function (c, i) {
      var td = el('td', c[1] || null, c[0]);
      if (i === 11 && l.mapped_bytes !== undefined) {
        td.setAttribute('data-metric', 'lunlab_lu_mapped_bytes');
        td.setAttribute('data-value', String(l.mapped_bytes));
      }
      tr.appendChild(td);
    });
    tbody.appendChild(tr);
  }

  function showLuns(cur, prev, dt) {
    var tbody = document.querySelector('#luns tbody');
    while (tbody.firstChild) tbody.removeChild(tbody.firstChild);
    cur.luns.forEach(function (l) {
      var p = prev ? prev.luns.filter(function (x) { return x.lun === l.lun; })[0] : null;
      luRow(tbody, l, p, dt);
      var h = state.luHist[l.lun] || (state.luHist[l.lun] = []);
      while (h.length < state.times.length - 1) h.unshift(null); /* an LU that appeared later */
      push(h, p ? (sumKinds(l, 'wire_bytes') - sumKinds(p, 'wire_bytes')) / dt : 0);
    });
    var keys = cur.luns.map(function (l) { return l.lun; }).join(',');
    var box = document.getElementById('lu-throughput');
    if (keys !== state.luChartKeys) {
      if (state.luChart) state.luChart.destroy();
      state.luChart = makeChart(box, 'per-LU throughput over the wire',
        cur.luns.map(function (l) { return 'LUN ' + l.lun + (l.volume ? ' ' + l.volume : ''); }),
        function (v) { return fmtBytes(v) + '/s'; });
      charts['lu:throughput'] = state.luChart;
      state.luChartKeys = keys;
    }
    var data = [state.times];
    cur.luns.forEach(function (l) { data.push(state.luHist[l.lun].slice(-state.times.length)); });
    state.luChart.setData(data);
  }

  function apply(cur) {
    var prev = state.prev;
    var dt = prev ? cur.time - prev.time : 0;
    if (prev && dt <= 0) return; /* same reading twice */
    state.readings++;
    var sessions = cur.iscsi.sessions.normal;
    setFigure(document.getElementById('sessions'), 'lunlab_iscsi_sessions', sessions,
              sessions + ' session' + (sessions === 1 ? '' : 's'));
    setFigure(document.getElementById('rss'), 'process_resident_memory_bytes', cur.process.rss_bytes,
              'RSS ' + fmtBytes(cur.process.rss_bytes));
    document.getElementById('updated').textContent = 'updated ' + new Date(cur.time * 1000).toLocaleTimeString();
    if (prev) push(state.times, cur.time);
    cur.arrays.forEach(function (a) {
      var entry = state.arrays[a.name] || (state.arrays[a.name] = arrayCard(a));
      showArray(entry, a, cur);
      if (!prev) return;
      var r = arrayRates(prev, cur, a, dt), h = entry.hist;
      while (h.cpu.length < state.times.length - 1) { /* an array that appeared later */
        ['cpu', 'mlat', 'olat', 'cloned', 'wire'].forEach(function (k) { h[k].unshift(null); });
      }
      entry.nodes.cpu.textContent = r.cpu == null ? '—' : r.cpu.toFixed(1) + '%';
      entry.nodes.mlat.textContent = fmtUs(r.mlat);
      push(h.cpu, r.cpu);
      push(h.mlat, r.mlat > 0 ? r.mlat : null); /* a log axis has no 0 */
      push(h.olat, r.olat > 0 ? r.olat : null);
      push(h.cloned, r.cloned);
      push(h.wire, r.wire);
      updateCharts(entry, a.name);
    });
    showLuns(cur, prev, dt);
    state.prev = cur;
  }

  function poll() {
    fetch('/metrics.json', { cache: 'no-store', credentials: 'same-origin' })
      .then(function (r) {
        if (!r.ok) throw new Error('/metrics.json: HTTP ' + r.status);
        return r.json();
      })
      .then(function (snap) {
        document.getElementById('error').hidden = true;
        apply(snap);
      })
      .catch(function (e) {
        var box = document.getElementById('error');
        box.textContent = 'cannot read the target\'s figures: ' + e.message;
        box.hidden = false;
      })
      .then(function () { setTimeout(poll, POLL_MS); });
  }

  window.addEventListener('resize', function () {
    Object.keys(state.arrays).forEach(function (name) {
      var e = state.arrays[name];
      ['copy', 'cpu', 'latency'].forEach(function (k, i) {
        charts[name + ':' + k].setSize({ width: chartWidth(e.boxes[i]), height: 200 });
      });
    });
    if (state.luChart) {
      state.luChart.setSize({ width: chartWidth(document.getElementById('lu-throughput')), height: 200 });
    }
  });

  window.lunlab = { state: state, charts: charts };
  poll();
}());
