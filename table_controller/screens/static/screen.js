// Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
// What the dealer display and the players' board draw alike: the event stream that feeds a
// page (reconnected when it drops or falls silent), the cards, and the roads' grids and rings.
// Loaded after i18n.js and before the page's own script; no framework, nothing from the internet.
"use strict";

const Screens = (() => {
  const SUITS = { H: "\u2665", D: "\u2666", S: "\u2660", C: "\u2663" };

  const $ = (id) => document.getElementById(id);
  const make = (tag, className, text) => {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  };

  // --- the connection ------------------------------------------------------------------------

  /**
   * Follows the page's event stream at `url`. `handlers` draws each event, by its name, from
   * its data; the first, "view", also says how often the controller sends a heartbeat.
   * `reachable(yes)` shows the page's own signs when the controller is heard from again or is
   * lost; the body's classes (live, unreachable, connecting) are set here. `refused()`, if
   * given, is asked when the server refuses the stream (an HTTP error, where EventSource stops
   * retrying): it resolves to whether to try again (the floor's pages first check whether
   * their session has ended). The answer's `close()` ends the stream for good.
   */
  function follow(url, handlers, reachable, refused = () => true) {
    let source = null;
    let live = false;
    let lastWord = 0;
    let heartbeatMs = 5000;
    let closed = false;

    function setReachable(yes) {
      live = yes;
      document.body.classList.toggle("live", yes);
      document.body.classList.toggle("unreachable", !yes);
      document.body.classList.remove("connecting");
      reachable(yes);
    }

    function listen(name, handler) {
      source.addEventListener(name, (event) => {
        lastWord = performance.now();
        if (!live) setReachable(true);
        handler(JSON.parse(event.data));
      });
    }

    function connect() {
      if (source) source.close();
      if (closed) return;
      source = new EventSource(url);
      listen("view", (view) => {
        if (view.heartbeat_ms) heartbeatMs = view.heartbeat_ms;
        handlers.view(view);
      });
      for (const [name, handler] of Object.entries(handlers)) {
        if (name !== "view") listen(name, handler);
      }
      listen("heartbeat", () => {});
      source.onerror = async () => {
        // The stream dropped: say so at once. EventSource retries by itself while it is
        // CONNECTING; once CLOSED (an HTTP error) it will not, so start a new one.
        setReachable(false);
        if (source.readyState !== EventSource.CLOSED) return;
        if (await refused()) setTimeout(connect, 1000);
      };
    }

    // A stream can also go silent without closing (a cable pulled out somewhere): the heartbeat
    // stops, and after two and a half of its periods the page says so and reconnects.
    const silence = setInterval(() => {
      if (live && performance.now() - lastWord > heartbeatMs * 2.5) {
        setReachable(false);
        connect();
      }
    }, 500);
    connect();
    return {
      close() {
        closed = true;
        clearInterval(silence);
        if (source) source.close();
        source = null;
      },
    };
  }

  // --- cards and roads -----------------------------------------------------------------------

  /** A card by its code ("TH": ten of hearts), "?" for a card not read. */
  function card(code) {
    if (typeof code !== "string" || code.length !== 2) return make("span", "card unread", "?");
    const rank = code[0] === "T" ? "10" : code[0];
    const suit = code[1];
    const node = make("span", "card" + (suit === "H" || suit === "D" ? " red" : ""), rank);
    node.dataset.code = code;
    node.append(make("small", null, SUITS[suit] || suit));
    return node;
  }

  // Each road shows its newest columns, as many whole ones as its board has room for: the
  // earliest give way as a shoe goes on, as on a casino's scoreboard. data-first-column says
  // which column of the road is drawn first; --size is the cell size the style sheet draws at.
  function fill(grid, cells, width, size, draw) {
    const columns = Math.max(1, Math.floor(grid.parentElement.clientWidth / size));
    const first = Math.max(0, width - columns);
    grid.style.setProperty("--size", size + "px");
    grid.style.gridTemplateColumns = "repeat(" + columns + ", var(--size))";
    grid.dataset.firstColumn = String(first);
    grid.replaceChildren(...cells.filter((cell) => cell.x >= first).map((cell) => {
      const node = draw(cell);
      node.style.gridColumnStart = String(cell.x - first + 1);
      node.style.gridRowStart = String(cell.y + 1);
      return node;
    }));
  }

  /** The pair dots of a bead or a ring. */
  function pairs(node, cell) {
    if (cell.banker_pair) node.append(make("i", "pair bp"));
    if (cell.player_pair) node.append(make("i", "pair pp"));
    return node;
  }

  /** A Big Road cell: a ring, slashed for a tie after it, with the count of more than one. */
  function ring(cell) {
    const node = make("span", "ring " + cell.winner);
    node.dataset.winner = cell.winner;
    node.dataset.ties = String(cell.ties || 0);
    if (cell.ties > 0) {
      node.append(make("i", "slash"));
      if (cell.ties > 1) node.append(make("b", "ties", I18n.number(cell.ties)));
    }
    return pairs(node, cell);
  }

  return { $, make, follow, card, fill, pairs, ring };
})();
