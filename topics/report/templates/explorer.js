// The paper explorer (topics.report.explorer builds its data). Paper text is untrusted:
// it only ever reaches the page through textContent, never as markup.
(function () {
  "use strict";
  var holder = document.getElementById("explorer-data");
  var section = document.getElementById("papers");
  if (!holder || !section) return;
  var data = JSON.parse(holder.textContent);
  var P = data.papers || null;
  var PAGE = 100;
  var MAX_HIGHLIGHT = 20000;
  var state = { query: "", topic: "", area: "", year: "", group: "", theme: "", sort: "", dir: 1, limit: PAGE };
  var topics = new Map(data.topics.map(function (t) { return [t.id, t]; }));
  var areas = new Map(data.areas.map(function (a) { return [a.id, a]; }));
  var byPos = new Map();
  var hay = null;
  var shown = [];
  var map = document.getElementById("chart-map");

  function $(id) { return document.getElementById(id); }
  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = text;
    if (cls) node.className = cls;
    return node;
  }
  function topicName(t) {
    if (t === -1) return "no topic (outlier)";
    var topic = topics.get(t);
    return t + ": " + (topic ? topic.label : "");
  }
  function areaName(a) { return areas.has(a) ? areas.get(a).label : "none"; }
  function groupName(i) { return data.groups[P.group[i]] || ""; }
  function themeNames(i) { return P.themes[i].map(function (k) { return data.themes[k]; }).join(", "); }

  // Long paper lists travel gzip-compressed; the page's loader unpacks them as it does plotly.js.
  async function unpack() {
    if (!P) P = JSON.parse(await window.topicsGunzip(data.packed));
  }

  function fillSelect(id, entries) {
    var select = $(id);
    if (!select) return;
    entries.forEach(function (e) {
      var option = el("option", e[1]);
      option.value = String(e[0]);
      select.appendChild(option);
    });
    select.addEventListener("change", function () { state[select.dataset.field] = select.value; state.limit = PAGE; render(); });
  }

  function matches(i, words) {
    if (state.topic !== "" && P.topic[i] !== Number(state.topic)) return false;
    if (state.area !== "" && P.area[i] !== Number(state.area)) return false;
    if (state.year !== "" && P.year[i] !== Number(state.year)) return false;
    if (state.group !== "" && P.group[i] !== Number(state.group)) return false;
    if (state.theme !== "" && P.themes[i].indexOf(Number(state.theme)) < 0) return false;
    for (var w = 0; w < words.length; w++) if (hay[i].indexOf(words[w]) < 0) return false;
    return true;
  }

  var keys = {
    title: function (i) { return P.title[i].toLowerCase(); },
    year: function (i) { return P.year[i]; },
    group: function (i) { return P.group[i]; },
    topic: function (i) { return P.topic[i] === -1 ? Infinity : P.topic[i]; },
    area: function (i) { return areaName(P.area[i]).toLowerCase(); },
    confidence: function (i) { return P.confidence[i]; },
  };

  function filtered() {
    var words = state.query.toLowerCase().split(/\s+/).filter(Boolean);
    if (words.length && !hay) hay = P.title.map(function (t, i) { return (t + " " + P.abstract[i]).toLowerCase(); });
    var out = [];
    for (var i = 0; i < P.topic.length; i++) if (matches(i, words)) out.push(i);
    if (state.sort) {
      var key = keys[state.sort], dir = state.dir;
      out.sort(function (a, b) {
        var ka = key(a), kb = key(b);
        return ka < kb ? -dir : ka > kb ? dir : a - b;
      });
    }
    return out;
  }

  function row(i) {
    var tr = el("tr");
    tr.dataset.index = String(i);
    if (P.low[i]) tr.className = "low-confidence";
    var title = el("button", P.title[i], "paper-title");
    title.type = "button";
    title.addEventListener("click", function () { openPaper(i); });
    tr.appendChild(el("td")).appendChild(title);
    tr.appendChild(el("td", String(P.year[i])));
    if (P.group) tr.appendChild(el("td", groupName(i)));
    tr.appendChild(el("td", topicName(P.topic[i])));
    tr.appendChild(el("td", areaName(P.area[i])));
    var conf = tr.appendChild(el("td", P.confidence[i] + " %", "num"));
    if (P.low[i]) conf.appendChild(el("span", " low", "low"));
    if (P.themes) tr.appendChild(el("td", themeNames(i)));
    if (P.url) {
      var cell = tr.appendChild(el("td"));
      if (P.url[i]) {
        var a = cell.appendChild(el("a", "link"));
        a.href = P.url[i];
        a.rel = "noopener noreferrer";
        a.target = "_blank";
      }
    }
    return tr;
  }

  function active() {
    return Boolean(state.query.trim() || state.topic || state.area || state.year || state.group || state.theme);
  }

  function render() {
    shown = filtered();
    var body = document.createDocumentFragment();
    shown.slice(0, state.limit).forEach(function (i) { body.appendChild(row(i)); });
    $("explorer-rows").replaceChildren(body);
    var n = shown.length;
    $("explorer-count").textContent = (n === P.topic.length ? "All " + n.toLocaleString("en") + " papers" :
      n.toLocaleString("en") + " of " + P.topic.length.toLocaleString("en") + " papers match") +
      (n > state.limit ? "; showing the first " + state.limit.toLocaleString("en") + "." : ".");
    var more = $("explorer-more");
    more.hidden = n <= state.limit;
    highlight();
  }

  function highlight() {
    var note = $("map-search-count");
    if (note) note.textContent = active() ? shown.length.toLocaleString("en") + " matching papers are circled on the map." : "";
    if (!map || !map.data || !window.Plotly || !window.Plotly.restyle) return;
    var k = map.data.findIndex(function (t) { return t.meta === "search"; });
    if (k < 0) return;
    var xs = [], ys = [], ids = [];
    if (active()) {
      shown.slice(0, MAX_HIGHLIGHT).forEach(function (i) { xs.push(P.x[i]); ys.push(P.y[i]); ids.push(P.pos[i]); });
    }
    window.Plotly.restyle(map, { x: [xs], y: [ys], customdata: [ids] }, [k]);
  }

  function syncControls() {
    $("explorer-search").value = state.query;
    var mapSearch = $("map-search");
    if (mapSearch) mapSearch.value = state.query;
    section.querySelectorAll("select[data-field]").forEach(function (s) { s.value = state[s.dataset.field]; });
  }

  function showOnly(field, value) {
    state.query = ""; state.topic = ""; state.area = ""; state.year = ""; state.group = ""; state.theme = "";
    state[field] = String(value);
    state.limit = PAGE;
    syncControls();
    render();
    section.scrollIntoView({ block: "start" });
  }

  function openPaper(i) {
    var panel = $("paper-detail");
    panel.querySelector(".detail-title").textContent = P.title[i];
    var meta = [String(P.year[i])];
    if (P.group) meta.push(groupName(i));
    meta.push("topic " + topicName(P.topic[i]), "area " + areaName(P.area[i]),
      "confidence " + P.confidence[i] + " %" + (P.low[i] ? " (low)" : ""));
    if (P.themes && P.themes[i].length) meta.push("themes: " + themeNames(i));
    panel.querySelector(".detail-meta").textContent = meta.join(" · ");
    panel.querySelector(".detail-abstract").textContent = P.abstract[i];
    var link = panel.querySelector(".detail-link");
    link.replaceChildren();
    if (P.url && P.url[i]) {
      var a = link.appendChild(el("a", "Open the paper's page"));
      a.href = P.url[i];
      a.rel = "noopener noreferrer";
      a.target = "_blank";
    }
    var list = panel.querySelector(".detail-neighbors");
    list.replaceChildren();
    (P.neighbors ? P.neighbors[i] : []).forEach(function (j, r) {
      var li = list.appendChild(el("li"));
      var b = li.appendChild(el("button", P.title[j], "paper-title"));
      b.type = "button";
      b.addEventListener("click", function () { openPaper(j); });
      li.appendChild(el("span", P.year[j] + " · " + topicName(P.topic[j]) +
        " · similarity " + (P.similarity[i][r] / 100).toFixed(2), "detail-near"));
    });
    panel.querySelector(".detail-near-heading").hidden = !P.neighbors;
    panel.dataset.index = String(i);
    panel.hidden = false;
    panel.querySelector(".detail-close").focus();
  }

  function closePaper() { $("paper-detail").hidden = true; }

  function hookMap() {
    if (!map || typeof map.on !== "function") return;
    map.on("plotly_click", function (ev) {
      var p = ev && ev.points && ev.points[0];
      if (!p || p.customdata === undefined || p.customdata === null) return;
      var i = byPos.get(Number(p.customdata));
      if (i !== undefined) openPaper(i);
    });
    // Topic names appear once the reader zooms in to under half the map's width.
    map.on("plotly_relayout", function (ev) {
      if (ev && ev.autosize) { placeAreaNames(); return; }  // the window was resized
      if (!ev || !Object.keys(ev).some(function (k) { return k.indexOf("xaxis.") === 0; })) return;
      var range = map.layout.xaxis && map.layout.xaxis.range;
      var span = map.layout.meta && map.layout.meta.x_span;
      var zoomed = Boolean(range && span && Math.abs(range[1] - range[0]) < 0.5 * span);
      var update = {};
      (map.layout.annotations || []).forEach(function (a, j) {
        if (a.name === "topic" && Boolean(a.visible) !== zoomed) update["annotations[" + j + "].visible"] = zoomed;
      });
      (Object.keys(update).length ? window.Plotly.relayout(map, update) : Promise.resolve()).then(placeAreaNames);
    });
  }

  // Area names sit at the medians of their papers; where two names' boxes overlap, the
  // later one moves the shortest way (up or down first) that frees it and stays on the
  // plot. Run once the map is drawn and again after each zoom; then the map says so
  // (data-labels="placed").
  function placeAreaNames() {
    if (!map || !map._fullLayout) return Promise.resolve();
    var anns = map.layout.annotations || [];
    var reset = {};
    anns.forEach(function (a, j) {
      if (a.name === "area" && (a.xshift || a.yshift)) { reset["annotations[" + j + "].xshift"] = 0; reset["annotations[" + j + "].yshift"] = 0; }
    });
    var start = Object.keys(reset).length ? window.Plotly.relayout(map, reset) : Promise.resolve();
    return start.then(function () {
      var size = map._fullLayout._size, svg = map.querySelector(".main-svg").getBoundingClientRect();
      var plot = [size.l, size.t, size.l + size.w, size.t + size.h], placed = [], update = {};
      var moves = [];
      for (var dy = -160; dy <= 160; dy += 4) for (var dx = -160; dx <= 160; dx += 8) moves.push([dx, dy]);
      moves.sort(function (m, n) { return (4 * m[0] * m[0] + m[1] * m[1]) - (4 * n[0] * n[0] + n[1] * n[1]); });
      map.querySelectorAll("g.annotation").forEach(function (node) {
        var j = Number(node.getAttribute("data-index"));
        if (!anns[j] || anns[j].name !== "area") return;
        var r = (node.querySelector("g.annotation-text-g") || node).getBoundingClientRect();
        var box = [r.left - svg.left, r.top - svg.top, r.right - svg.left, r.bottom - svg.top];
        var free = function (m) {
          var b = [box[0] + m[0], box[1] + m[1], box[2] + m[0], box[3] + m[1]];
          if (b[0] < plot[0] || b[2] > plot[2] || b[1] < plot[1] || b[3] > plot[3]) return m[0] === 0 && m[1] === 0 && placed.every(apart(b));
          return placed.every(apart(b));
        };
        var apart = function (b) { return function (p) { return b[2] + 2 <= p[0] || p[2] + 2 <= b[0] || b[3] + 2 <= p[1] || p[3] + 2 <= b[1]; }; };
        var move = moves.find(free) || [0, 0];
        placed.push([box[0] + move[0], box[1] + move[1], box[2] + move[0], box[3] + move[1]]);
        if (move[0] || move[1]) { update["annotations[" + j + "].xshift"] = move[0]; update["annotations[" + j + "].yshift"] = -move[1]; }
      });
      return Object.keys(update).length ? window.Plotly.relayout(map, update) : null;
    }).then(function () { map.dataset.labels = "placed"; });
  }

  function init() {
    P.pos.forEach(function (p, i) { byPos.set(p, i); });
    fillSelect("filter-topic", data.topics.map(function (t) { return [t.id, topicName(t.id)]; }));
    fillSelect("filter-area", data.areas.map(function (a) { return [a.id, a.label]; }));
    var years = Array.from(new Set(P.year)).sort();
    fillSelect("filter-year", years.map(function (y) { return [y, String(y)]; }));
    if (P.group) fillSelect("filter-group", data.groups.map(function (g, k) { return [k, g]; }));
    if (P.themes) fillSelect("filter-theme", data.themes.map(function (t, k) { return [k, t]; }));
    var timer = null;
    function onSearch(ev) {
      state.query = ev.target.value;
      state.limit = PAGE;
      syncControls();
      clearTimeout(timer);
      timer = setTimeout(render, 120);
    }
    $("explorer-search").addEventListener("input", onSearch);
    if ($("map-search")) $("map-search").addEventListener("input", onSearch);
    $("explorer-more").addEventListener("click", function () { state.limit += PAGE; render(); });
    $("explorer-reset").addEventListener("click", function () { showOnly("query", ""); });
    section.querySelectorAll("th button[data-sort]").forEach(function (b) {
      b.addEventListener("click", function () {
        state.dir = state.sort === b.dataset.sort ? -state.dir : 1;
        state.sort = b.dataset.sort;
        section.querySelectorAll("th[aria-sort]").forEach(function (th) { th.removeAttribute("aria-sort"); });
        b.parentNode.setAttribute("aria-sort", state.dir > 0 ? "ascending" : "descending");
        render();
      });
    });
    document.querySelectorAll("[data-explore-topic]").forEach(function (node) {
      node.addEventListener("click", function (ev) {
        if (ev.target.closest("a")) return;
        showOnly("topic", node.dataset.exploreTopic);
      });
    });
    document.querySelectorAll("[data-explore-area]").forEach(function (node) {
      node.addEventListener("click", function () { showOnly("area", node.dataset.exploreArea); });
    });
    $("paper-detail").querySelector(".detail-close").addEventListener("click", closePaper);
    document.addEventListener("keydown", function (ev) { if (ev.key === "Escape") closePaper(); });
    render();
    // the charts draw once plotly.js is unpacked: then the map takes clicks and circles
    if (window.topicsCharts) window.topicsCharts.then(function () { hookMap(); highlight(); return placeAreaNames(); }, function () {});
    section.dataset.ready = "1";
  }

  // The page's chart loader waits for this before it unpacks plotly.js, so that the list
  // answers first and the charts draw after it.
  window.topicsExplorer = unpack().then(init).catch(function (err) {
    $("explorer-count").textContent = "This browser could not open the paper list (" + err + "); the tables hold every paper.";
  });
})();
