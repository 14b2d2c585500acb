// The players' board: draws what the controller sends; decides nothing, takes no command.
// One event stream (/board/api/events): a whole "view" on connect, then "board" and "roads"
// events, and a "heartbeat" while the table is quiet. Every text comes from the catalogue
// (I18n, screens/static/i18n.js); the stream, the cards and the roads' grids are the dealer
// display's (Screens, screens/static/screen.js). No framework, nothing from the internet.
"use strict";

(() => {
  const { $, make, card, fill, pairs, ring } = Screens;
  const ROADS = ["big_eye_boy", "small_road", "cockroach_pig"];
  const ROWS = 6;
  // The letters on the bead plate and the last results, in the board's language.
  const BEAD_LETTERS = {
    B: () => I18n.t("game.bead.banker"),
    P: () => I18n.t("game.bead.player"),
    T: () => I18n.t("game.bead.tie"),
  };
  // The legend of the derived roads' marks (for a screen reader: the marks have no text).
  const ROAD_NAMES = {
    big_eye_boy: () => I18n.t("game.road.big_eye_boy"),
    small_road: () => I18n.t("game.road.small_road"),
    cockroach_pig: () => I18n.t("game.road.cockroach_pig"),
  };

  // A text sent by the controller: a catalogue's ({key, args}), or one shown as it is (a
  // composed variant's title, a bet the catalogue does not name).
  const say = (text) => I18n.text(text);
  const number = (value) => (value === null || value === undefined ? "–" : I18n.number(value));

  let board = null;
  let roads = null;
  let lastResults = [];

  // --- the connection ------------------------------------------------------------------------

  function follow() {
    Screens.follow("/board/api/events", {
      view: (view) => {
        renderBoard(view.board);
        renderRoads(view);
      },
      board: renderBoard,
      roads: renderRoads,
    }, (reachable) => {
      $("offline").hidden = reachable;
    });
  }

  // --- the round -------------------------------------------------------------------------------

  function renderHand(name, hand) {
    const cards = (hand && hand.cards) || [];
    $(name + "-cards").replaceChildren(...cards.map(card));
    const total = hand && hand.total !== null && hand.total !== undefined ? hand.total : null;
    $(name + "-total").textContent = total === null ? "" : I18n.number(total);
  }

  function renderBanner(result) {
    $("banner").hidden = !result;
    if (!result) return;
    $("banner").dataset.winner = result.winner;
    $("banner-text").textContent = say(result.text);
    $("banner-player").textContent = number(result.player_total);
    $("banner-banker").textContent = number(result.banker_total);
    $("banner-notes").replaceChildren(...(result.notes || []).map((note) => make("span", "note", say(note))));
    // As large as the style sheet says, smaller only if a long headline would not fit.
    const banner = $("banner");
    const text = $("banner-text");
    text.style.fontSize = "";
    let size = parseFloat(getComputedStyle(text).fontSize);
    while (size > 28 && (banner.scrollWidth > banner.clientWidth || banner.scrollHeight > banner.clientHeight)) {
      size -= 2;
      text.style.fontSize = size + "px";
    }
  }

  /** An amount of the table's currency (named once, in the heading), as the language writes it:
   *  in full, as the table publishes it (no currency's minor unit has more than four decimals). */
  function money(value) {
    if (value === null || value === undefined) return "–";
    return I18n.number(value, { maximumFractionDigits: 4 });
  }

  function renderLimits(view) {
    $("currency").textContent = view.currency || "";
    const rows = (view.bets || []).map((bet) => {
      const row = make("li", (bet.side ? "side" : "main") + (bet.open ? "" : " closed"));
      row.dataset.bet = bet.bet;
      const name = make("span", "bet-name", say(bet.name));
      if (!bet.open) name.append(" ", make("small", "shut", I18n.t("game.bet_closed")));
      const known = bet.min !== null && bet.min !== undefined;
      const range = make("span", "range", known
        ? money(bet.min) + " – " + money(bet.max) : "–");
      row.append(name, range);
      return row;
    });
    // The side bets under their own heading, after the main bets.
    const firstSide = (view.bets || []).findIndex((bet) => bet.side);
    if (firstSide >= 0) rows.splice(firstSide, 0, make("li", "side-head", I18n.t("game.side_bets")));
    $("limits").replaceChildren(...rows);
    shrinkToFit($("limits"), Math.max(16, Math.round(Math.min(innerWidth, innerHeight) / 36)), 10);
  }

  // The largest font size (px) from most down to least at which the node's text fits its box.
  function shrinkToFit(node, most, least) {
    let size = most;
    node.style.fontSize = size + "px";
    while (size > least && (node.scrollHeight > node.clientHeight || node.scrollWidth > node.clientWidth)) {
      size -= 1;
      node.style.fontSize = size + "px";
    }
  }

  function renderBoard(view) {
    if (!view) return;
    board = view;
    $("table-id").textContent = view.table_id || "";
    $("variant").textContent = say(view.variant);
    $("round-no").textContent = number(view.round_no);
    $("cards-left").textContent = number(view.cards_left);
    const status = view.status || {};
    document.body.dataset.status = status.kind || "wait";
    $("status").textContent = say(status.text);
    $("last-round").hidden = !view.last_round;
    const hands = view.hands || {};
    renderHand("player", hands.player);
    renderHand("banker", hands.banker);
    renderBanner(view.result);
    renderLimits(view);
  }

  // --- the scoreboards ---------------------------------------------------------------------------

  // The cell size of a road: six rows in its board's height, the Big Road and the bead plate
  // at least MIN_COLUMNS across (its newest columns shown: fill()).
  function cellSize(grid, minColumns) {
    const room = grid.parentElement;
    return Math.max(8, Math.floor(Math.min(room.clientHeight / ROWS, room.clientWidth / minColumns)));
  }

  function bead(cell) {
    const letter = BEAD_LETTERS[cell.winner];
    const node = make("span", "bead " + cell.winner, letter ? letter() : cell.winner);
    node.dataset.winner = cell.winner;
    return pairs(node, cell);
  }

  function mark(road, colour) {
    const node = make("span", "mark " + road + " " + colour);
    node.dataset.colour = colour;
    node.title = ROAD_NAMES[road]();
    return node;
  }

  function renderCounts(stats) {
    const counts = stats || {};
    for (const [id, key] of [["count-banker", "banker"], ["count-player", "player"],
      ["count-tie", "tie"], ["count-banker-pair", "banker_pair"],
      ["count-player-pair", "player_pair"], ["count-natural", "natural"]]) {
      $(id).textContent = I18n.number(counts[key] || 0);
    }
  }

  // The newest results, as many as fit on one line of their box.
  function renderLastResults() {
    const list = $("last-results");
    list.replaceChildren(...lastResults.slice().reverse().map((result) => {
      const item = make("li", "bead " + result.winner, BEAD_LETTERS[result.winner] ? BEAD_LETTERS[result.winner]() : "");
      item.dataset.winner = result.winner;
      return pairs(item, result);
    }));
    while (list.lastElementChild && list.scrollWidth > list.clientWidth) list.lastElementChild.remove();
  }

  function renderRoads(view) {
    if (!view) return;
    roads = view.roads;
    lastResults = view.last_results || [];
    const shown = roads || {};
    for (const [id, ask] of [["ask-banker", shown.ask_banker], ["ask-player", shown.ask_player]]) {
      const marks = ROADS.map((road) => (ask && ask[road] ? mark(road, ask[road]) : make("span", "none")));
      $(id).querySelector(".ask-marks").replaceChildren(...marks);
    }
    renderCounts(shown.stats);
    renderLastResults();
    const width = shown.width || {};
    const big = cellSize($("big-road"), 20);
    fill($("big-road"), shown.big_road || [], width.big_road || 0, big, ring);
    const beadSize = cellSize($("bead-plate"), 6);
    fill($("bead-plate"), shown.bead_plate || [], width.bead_plate || 0, beadSize, bead);
    for (const road of ROADS) {
      const grid = document.querySelector('[data-road="' + road + '"]');
      const size = cellSize(grid, 8);
      fill(grid, shown[road] || [], width[road] || 0, size, (m) => mark(road, m.colour));
    }
  }

  // A resized window changes the room the boards have: draw them again, once per frame.
  let refit = 0;
  const fitAgain = new ResizeObserver(() => {
    cancelAnimationFrame(refit);
    refit = requestAnimationFrame(() => {
      if (board) renderBoard(board);
      renderRoads({ roads, last_results: lastResults });
    });
  });

  I18n.load("board").then(() => {
    for (const room of document.querySelectorAll(".board, .last-results")) fitAgain.observe(room);
    follow();
  }, (error) => {
    console.error("board: the catalogue did not load", error);
    setTimeout(() => window.location.reload(), 5000);
  });
})();
