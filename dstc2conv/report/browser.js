// The dialog browser: filters, search and #dialog-N addresses over the data blob.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("data").textContent);
  var S = data.strings, systems = data.systems, PAGE = 40;
  var turns = [];   // every bot turn: {d: dialog entry, t: its array, pos: position in the file}
  data.dialogs.forEach(function (d) {
    d[2].forEach(function (t) { turns.push({d: d, t: t, pos: turns.length}); });
  });
  var controls = document.getElementById("controls");
  var list = document.getElementById("dialogs");
  var shown = document.getElementById("shown");
  var limit = PAGE;

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function select(id, label, options) {
    var l = el("label", {}, label + " "), s = el("select", {id: id});
    options.forEach(function (o) { s.appendChild(el("option", {value: o[0]}, o[1])); });
    l.appendChild(s); controls.appendChild(l);
    s.addEventListener("change", update);
    return s;
  }
  function check(id, label) {
    var l = el("label", {}), c = el("input", {type: "checkbox", id: id});
    l.appendChild(c); l.appendChild(document.createTextNode(" " + label)); controls.appendChild(l);
    c.addEventListener("change", update);
    return c;
  }
  var kind = select("f-kind", "kind", [["", "all"]].concat(data.kinds.map(function (k, i) { return [String(i), k]; })));
  var wrong = check("f-wrong", "wrong only, in");
  var wrongIn = select("f-wrong-in", "", [["", "any system"]].concat(systems.map(function (n, i) { return [String(i), n]; })));
  var disagree = check("f-disagree", "systems disagree");
  var dsys = data.dialog_systems ? select("f-dsys", "dialog system",
    [["", "all"]].concat(data.dialog_systems.map(function (n, i) { return [String(i), n]; }))) : null;
  var search = el("input", {type: "search", id: "f-search", placeholder: "search the texts"});
  controls.appendChild(search);
  var typing = null;   // redraw once typing pauses, not at every key
  search.addEventListener("input", function () {
    clearTimeout(typing);
    typing = setTimeout(function () { update(true); }, 150);
  });
  var all = (1 << systems.length) - 1;

  function keep(x) {
    var t = x.t;
    if (kind.value !== "" && t[3] !== +kind.value) return false;
    if (wrong.checked) {
      if (wrongIn.value === "" ? t[4] === all : (t[4] >> +wrongIn.value) & 1) return false;
    }
    if (disagree.checked && t[5].every(function (p) { return p === t[5][0]; })) return false;
    if (dsys && dsys.value !== "" && x.d[1] !== +dsys.value) return false;
    var q = search.value.trim().toLowerCase();
    if (q) {
      var texts = [t[1], t[2]].concat(t[5]);
      if (!texts.some(function (i) { return S[i].toLowerCase().indexOf(q) >= 0; })) return false;
    }
    return true;
  }
  function attention(box, x) {
    Object.keys(data.attention).forEach(function (name) {
      var a = data.attention[name], found = a.turns[String(x.pos)];
      if (!found) return;
      var b = el("button", {type: "button", "class": "att-button"}, "attention (" + name + ")");
      b.addEventListener("click", function () {
        if (b.nextSibling && b.nextSibling.className === "att") { b.parentNode.removeChild(b.nextSibling); return; }
        b.parentNode.insertBefore(drawAttention(name, found, x), b.nextSibling);
      });
      box.appendChild(b);
    });
  }
  function drawAttention(name, found, x) {
    var box = el("div", {"class": "att"});
    var table = el("table"), head = el("tr");
    found[1].forEach(function (_, h) { head.appendChild(el("th", {}, "hop " + (h + 1))); });
    head.appendChild(el("th", {}, "memory (oldest first)"));
    table.appendChild(head);
    if (found[3]) {
      var more = el("tr"); more.appendChild(el("td", {colspan: String(found[1].length + 1)},
        "(" + found[3] + " earlier utterances beyond the memory)")); table.appendChild(more);
    }
    found[0].forEach(function (slot, j) {
      var tr = el("tr");
      found[1].forEach(function (hop) {
        var w = hop[j], td = el("td", {"class": "w"}, w.toFixed(3));
        td.style.background = "rgba(31,119,180," + Math.min(1, w).toFixed(3) + ")";
        if (w > 0.5) td.style.color = "#fff";
        tr.appendChild(td);
      });
      var text = el("td", {}, slot[0] + ": " + S[slot[1]]);
      text.style.background = "rgba(31,119,180," + (0.6 * Math.max.apply(null, found[1].map(function (h) { return h[j]; }))).toFixed(3) + ")";
      tr.appendChild(text);
      table.appendChild(tr);
    });
    box.appendChild(table);
    box.appendChild(el("div", {}, "user: " + S[x.t[1]]));
    box.appendChild(el("div", {}, name + "'s answer: " + S[found[2]]));
    return box;
  }
  function drawTurn(x) {
    var t = x.t, box = el("div", {"class": "turn", "data-pos": String(x.pos)});
    if (t[6].length) box.appendChild(el("div", {"class": "ctx"}, t[6].map(function (i) { return S[i]; }).join("\n")));
    var user = el("div", {"class": "user"}, "user: " + S[t[1]]);
    user.insertBefore(el("span", {"class": "line"}, "line " + t[0] + "  "), user.firstChild);
    box.appendChild(user);
    box.appendChild(el("div", {"class": "gold"}, "gold (" + data.kinds[t[3]] + "): " + S[t[2]]));
    systems.forEach(function (name, s) {
      var ok = (t[4] >> s) & 1, a = el("div", {"class": "ans " + (ok ? "right" : "wrong")});
      a.appendChild(el("b", {}, name));
      a.appendChild(document.createTextNode(ok ? "(right)" : S[t[5][s]] || "(no answer)"));
      box.appendChild(a);
    });
    attention(box, x);
    return box;
  }
  function drawDialog(d, rows, opened) {
    var box = el("div", {"class": "dialog" + (opened ? " opened" : ""), id: opened ? "dialog-" + d[0] : "d" + d[0]});
    var h = el("h3"), a = el("a", {href: "#dialog-" + d[0]}, "Dialog " + d[0]);
    h.appendChild(a);
    if (d[1] !== null) h.appendChild(document.createTextNode(" (" + data.dialog_systems[d[1]] + ")"));
    if (opened) {
      var back = el("a", {href: "#browser"}, "back to the list");
      h.appendChild(document.createTextNode("  ")); h.appendChild(back);
    }
    box.appendChild(h);
    rows.forEach(function (x) { box.appendChild(drawTurn(x)); });
    return box;
  }
  function opened() {
    var m = /^#dialog-(\d+)$/.exec(location.hash);
    if (!m) return null;
    var found = data.dialogs.filter(function (d) { return d[0] === +m[1]; });
    return found.length ? found[0] : null;
  }
  function update(event) {
    if (event) limit = PAGE;
    list.textContent = "";
    var d = opened();
    if (d) {
      var rows = turns.filter(function (x) { return x.d === d; });
      shown.textContent = "Dialog " + d[0] + ": " + rows.length + " turns (the filters do not apply to an opened dialog)";
      var box = drawDialog(d, rows, true);
      list.appendChild(box);
      box.scrollIntoView();
      return;
    }
    var kept = turns.filter(keep), groups = [], last = null;
    kept.forEach(function (x) {
      if (x.d !== last) { groups.push([x.d, []]); last = x.d; }
      groups[groups.length - 1][1].push(x);
    });
    shown.textContent = kept.length + " turns in " + groups.length + " dialogs shown";
    shown.setAttribute("data-turns", String(kept.length));
    groups.slice(0, limit).forEach(function (g) { list.appendChild(drawDialog(g[0], g[1], false)); });
    if (groups.length > limit) {
      var more = el("button", {type: "button", id: "more"}, "show " + Math.min(PAGE, groups.length - limit) +
        " more dialogs (" + (groups.length - limit) + " left)");
      more.addEventListener("click", function () { limit += PAGE; update(); });
      list.appendChild(more);
    }
  }
  window.addEventListener("hashchange", function () { update(); });
  update();
})();
