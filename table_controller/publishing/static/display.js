// The dealer's display: draws what the controller sends; decides nothing about the game.
// One event stream (/api/events): a whole "view" on connect, then "table", "roads" and
// "alarm" events, and a "heartbeat" while idle. No framework, nothing from the internet.
"use strict";

(() => {
  const SUITS = { H: "\u2665", D: "\u2666", S: "\u2660", C: "\u2663" };
  const ROADS = ["big_eye_boy", "small_road", "cockroach_pig"];
  const ALARMS_SHOWN = 6;
  const MIN_COLUMNS = { bead: 12, big: 30, small: 24 };

  const $ = (id) => document.getElementById(id);
  const make = (tag, className, text) => {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  };

  let source = null;
  let reachable = false;
  let lastWord = 0;
  let heartbeatMs = 5000;
  let table = null;
  let alarms = [];

  // --- the connection --------------------------------------------------------------------

  function setReachable(yes) {
    reachable = yes;
    document.body.classList.toggle("live", yes);
    document.body.classList.toggle("unreachable", !yes);
    document.body.classList.remove("connecting");
    $("unreachable").hidden = yes;
    $("link").textContent = yes ? "live" : "no contact";
  }

  function heard() {
    lastWord = performance.now();
    if (!reachable) setReachable(true);
  }

  function listen(name, handler) {
    source.addEventListener(name, (event) => {
      heard();
      handler(JSON.parse(event.data));
    });
  }

  function connect() {
    if (source) source.close();
    source = new EventSource("/api/events");
    listen("view", (view) => {
      if (view.heartbeat_ms) heartbeatMs = view.heartbeat_ms;
      renderTable(view.table);
      renderRoads(view.roads);
      alarms = view.alarms || [];
      renderAlarms();
    });
    listen("table", renderTable);
    listen("roads", renderRoads);
    listen("alarm", (alarm) => {
      alarms.unshift(alarm);
      alarms = alarms.slice(0, 20);
      renderAlarms();
    });
    listen("heartbeat", () => {});
    source.onerror = () => {
      // The stream dropped: say so at once. EventSource retries by itself while it is
      // CONNECTING; once CLOSED (an HTTP error) it will not, so start a new one.
      setReachable(false);
      if (source.readyState === EventSource.CLOSED) setTimeout(connect, 1000);
    };
  }

  // A stream can also go silent without closing (a cable pulled out somewhere): the heartbeat
  // stops, and after two and a half of its periods the page says so and reconnects.
  setInterval(() => {
    if (reachable && performance.now() - lastWord > heartbeatMs * 2.5) {
      setReachable(false);
      connect();
    }
  }, 500);

  // --- the table ---------------------------------------------------------------------------

  function cardNode(code) {
    if (typeof code !== "string" || code.length !== 2) return make("span", "card unread", "?");
    const rank = code[0] === "T" ? "10" : code[0];
    const suit = code[1];
    const node = make("span", "card" + (suit === "H" || suit === "D" ? " red" : ""), rank);
    node.dataset.code = code;
    node.append(make("small", null, SUITS[suit] || suit));
    return node;
  }

  function renderHand(name, hand) {
    const cards = (hand && hand.cards) || [];
    $(name + "-cards").replaceChildren(...cards.map(cardNode));
    const total = hand && hand.total !== null && hand.total !== undefined ? hand.total : "";
    $(name + "-total").textContent = total;
  }

  function text(value) {
    return value === null || value === undefined ? "–" : String(value);
  }

  function renderTable(view) {
    if (!view) return;
    table = view;
    const state = view.state || {};
    $("table-id").textContent = text(state.table_id);
    $("variant").textContent = state.variant || "";
    $("shoe-id").textContent = state.shoe_id ? "shoe " + state.shoe_id : "no shoe";
    $("round-no").textContent = text(state.round_no);
    $("cards-left").textContent = text(state.cards_left);
    $("cards-seen").textContent = text(state.cards_seen);
    $("phase").textContent = String(state.phase || "–").replace(/_/g, " ");
    const prompt = view.prompt || {};
    $("prompt").textContent = prompt.text || "";
    $("prompt-detail").textContent = prompt.detail || "";
    $("prompt-box").dataset.tone = prompt.tone || "idle";
    $("last-round").hidden = !(state.last_round && state.phase !== "shoe_over");
    const hands = view.hands || {};
    renderHand("player", hands.player);
    renderHand("banker", hands.banker);
    const roundId = state.round_id || (view.last_result && view.last_result.round_id) || "";
    $("void-round-id").placeholder = roundId;
  }

  // --- the scoreboards -----------------------------------------------------------------------

  function place(node, cell) {
    node.style.gridColumnStart = String(cell.x + 1);
    node.style.gridRowStart = String(cell.y + 1);
    return node;
  }

  function pairs(node, cell) {
    if (cell.banker_pair) node.append(make("i", "pair bp"));
    if (cell.player_pair) node.append(make("i", "pair pp"));
    return node;
  }

  function fill(grid, nodes, width, minimum) {
    grid.style.gridTemplateColumns = "repeat(" + Math.max(width, minimum) + ", var(--size))";
    grid.replaceChildren(...nodes);
    const scroll = grid.parentElement;
    scroll.scrollLeft = scroll.scrollWidth;
  }

  function derivedMark(road, colour) {
    const node = make("span", "mark " + road + " " + colour);
    node.title = road.replace(/_/g, " ") + ": " + colour;
    return node;
  }

  function renderRoads(roads) {
    const width = (roads && roads.width) || {};
    const beads = ((roads && roads.bead_plate) || []).map((bead) => {
      const node = make("span", "bead " + bead.winner, bead.winner);
      return place(pairs(node, bead), bead);
    });
    fill($("bead-plate"), beads, width.bead_plate || 0, MIN_COLUMNS.bead);
    const big = ((roads && roads.big_road) || []).map((cell) => {
      const node = make("span", "ring " + cell.winner);
      node.dataset.winner = cell.winner;
      if (cell.ties > 0) {
        node.append(make("i", "slash"));
        if (cell.ties > 1) node.append(make("b", "ties", cell.ties));
      }
      return place(pairs(node, cell), cell);
    });
    fill($("big-road"), big, width.big_road || 0, MIN_COLUMNS.big);
    for (const road of ROADS) {
      const grid = document.querySelector('[data-road="' + road + '"]');
      const marks = ((roads && roads[road]) || []).map((m) => place(derivedMark(road, m.colour), m));
      fill(grid, marks, width[road] || 0, MIN_COLUMNS.small);
    }
    for (const [id, ask] of [["ask-banker", roads && roads.ask_banker], ["ask-player", roads && roads.ask_player]]) {
      const marks = ROADS.map((road) =>
        ask && ask[road] ? derivedMark(road, ask[road]) : make("span", "none", "–"));
      $(id).querySelector(".ask-marks").replaceChildren(...marks);
    }
    renderStats(roads && roads.stats);
  }

  function renderStats(stats) {
    const box = $("stats");
    if (!stats) {
      box.replaceChildren();
      return;
    }
    const item = (label, value, className) => {
      const span = make("span", className, label + " ");
      span.append(make("b", null, value));
      return span;
    };
    box.replaceChildren(
      item("B", stats.banker, "b"), " · ", item("P", stats.player, "p"), " · ",
      item("T", stats.tie, "t"), make("br"),
      item("BP", stats.banker_pair), " · ", item("PP", stats.player_pair), " · ",
      item("Nat", stats.natural), " · ", item("Rounds", stats.rounds),
    );
  }

  // --- alarms ----------------------------------------------------------------------------------

  function renderAlarms() {
    const items = alarms.slice(0, ALARMS_SHOWN).map((alarm) => {
      const li = make("li", alarm.kind === "void" ? "void" : "alarm");
      const when = new Date(alarm.ts);
      const ts = Number.isNaN(when.getTime()) ? "" : when.toLocaleTimeString([], { hour12: false });
      li.append(make("time", null, ts), make("b", null, String(alarm.code || "").replace(/_/g, " ")),
        " ", alarm.message || "");
      return li;
    });
    $("alarms").replaceChildren(...items);
  }

  // --- commands --------------------------------------------------------------------------------

  function commandArgs(button) {
    const args = button.dataset.args ? JSON.parse(button.dataset.args) : {};
    switch (button.dataset.command) {
      case "void_round": {
        const typed = $("void-round-id").value.trim();
        args.round_id = typed || $("void-round-id").placeholder;
        break;
      }
      case "manual_card":
        args.card = $("manual-card").value; // as typed: the controller's one card rule decides
        break;
      default:
        break;
    }
    return args;
  }

  function say(ok, message) {
    const status = $("command-status");
    status.dataset.ok = String(ok);
    status.textContent = message;
  }

  async function send(button) {
    const command = button.dataset.command;
    const body = { command, args: commandArgs(button) };
    if (button.hasAttribute("data-supervisor")) {
      // The PIN goes with one command only: a dealer left at the screen cannot reuse it.
      body.pin = $("pin").value;
      $("pin").value = "";
    }
    const label = button.textContent;
    button.disabled = true;
    try {
      const response = await fetch("/api/commands", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      const reply = await response.json();
      if (reply.ok) {
        say(true, label + ": done");
        if (command === "manual_card") $("manual-card").value = "";
        if (command === "void_round") $("void-round-id").value = "";
      } else {
        say(false, label + ": refused: " + (reply.message || reply.error || response.status));
      }
    } catch (error) {
      say(false, label + ": the controller did not answer");
    } finally {
      button.disabled = false;
    }
  }

  $("supervisor-form").addEventListener("submit", (event) => event.preventDefault());

  document.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-command]");
    if (button) send(button);
  });

  connect();
})();
