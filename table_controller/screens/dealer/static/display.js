// The dealer's display: draws what the controller sends; decides nothing about the game.
// One event stream (/api/events): a whole "view" on connect, then "table", "roads" and
// "alarm" events, and a "heartbeat" while idle. No framework, nothing from the internet.
// Every word comes from the catalogues (i18n.js): the view's texts are {key, args}, and the
// page's own are the literal keys below. The stream, the cards and the roads' grids are the
// players' board's too (Screens, screen.js).
"use strict";

(() => {
  const { $, make, card, fill, pairs, ring } = Screens;
  const ROADS = ["big_eye_boy", "small_road", "cockroach_pig"];
  const ALARMS_SHOWN = 6;
  // Open alarms the supervisor's panel offers to acknowledge at once (the newest).
  const OPEN_ALARMS_SHOWN = 3;
  const ROWS = 6;
  // Columns each road shows at the least: its cells shrink to fit them across its board.
  const MIN_COLUMNS = { bead: 8, big: 28, derived: 16 };

  const PHASES = {
    no_shoe: () => I18n.t("display.phase.no_shoe"),
    burn_card: () => I18n.t("display.phase.burn_card"),
    burning: () => I18n.t("display.phase.burning"),
    between_rounds: () => I18n.t("display.phase.between_rounds"),
    betting: () => I18n.t("display.phase.betting"),
    dealing: () => I18n.t("display.phase.dealing"),
    shoe_over: () => I18n.t("display.phase.shoe_over"),
    held: () => I18n.t("display.phase.held"),
    faulted: () => I18n.t("display.phase.faulted"),
  };
  const ROAD_NAMES = {
    big_eye_boy: () => I18n.t("game.road.big_eye_boy"),
    small_road: () => I18n.t("game.road.small_road"),
    cockroach_pig: () => I18n.t("game.road.cockroach_pig"),
  };
  const COLOURS = {
    red: () => I18n.t("display.colour.red"),
    blue: () => I18n.t("display.colour.blue"),
  };
  const BEADS = {
    B: () => I18n.t("game.bead.banker"),
    P: () => I18n.t("game.bead.player"),
    T: () => I18n.t("game.bead.tie"),
  };
  const SIDES = { player: () => I18n.t("game.player"), banker: () => I18n.t("game.banker") };
  const WINNERS = {
    banker: () => I18n.t("game.winner.banker"),
    player: () => I18n.t("game.winner.player"),
    tie: () => I18n.t("game.winner.tie"),
  };
  // A refusal in the page's language, by its code; the controller's English sentence goes in
  // the line's title, for a technician.
  const REFUSALS = {
    oversized: () => I18n.t("display.refusal.invalid"),
    malformed_json: () => I18n.t("display.refusal.invalid"),
    invalid_message: () => I18n.t("display.refusal.invalid"),
    unknown_command: () => I18n.t("display.refusal.invalid"),
    invalid_args: () => I18n.t("display.refusal.invalid_args"),
    not_authorised: () => I18n.t("display.refusal.not_authorised"),
    bad_signature: () => I18n.t("display.refusal.invalid"),
    foreign_origin: () => I18n.t("display.refusal.invalid"),
    not_json: () => I18n.t("display.refusal.invalid"),
    supervisor_disabled: () => I18n.t("display.refusal.supervisor_disabled"),
    wrong_pin: () => I18n.t("display.refusal.wrong_pin"),
    pin_locked: () => I18n.t("display.refusal.pin_locked"),
    no_staff_register: () => I18n.t("display.refusal.no_staff_register"),
    no_answer: () => I18n.t("display.refusal.no_answer"),
    wrong_phase: () => I18n.t("display.refusal.wrong_phase"),
    table_held: () => I18n.t("display.refusal.table_held"),
    no_betting_phase: () => I18n.t("display.refusal.no_betting_phase"),
    betting_phase: () => I18n.t("display.refusal.betting_phase"),
    no_card_missing: () => I18n.t("display.refusal.no_card_missing"),
    unknown_round: () => I18n.t("display.refusal.unknown_round"),
    already_voided: () => I18n.t("display.refusal.already_voided"),
    invalid_coup: () => I18n.t("display.refusal.invalid_coup"),
    unchanged: () => I18n.t("display.refusal.unchanged"),
    foreign_card: () => I18n.t("display.refusal.foreign_card"),
    invalid_shoe_id: () => I18n.t("display.refusal.invalid_shoe_id"),
    faulted: () => I18n.t("display.refusal.faulted"),
    no_dealer: () => I18n.t("display.refusal.no_dealer"),
    not_signed_in: () => I18n.t("display.refusal.not_signed_in"),
    round_in_play: () => I18n.t("display.refusal.round_in_play"),
    dispute_open: () => I18n.t("display.refusal.dispute_open"),
    no_such_dispute: () => I18n.t("display.refusal.no_such_dispute"),
    nothing_to_acknowledge: () => I18n.t("display.refusal.nothing_to_acknowledge"),
    unknown_alarm: () => I18n.t("display.refusal.unknown_alarm"),
    already_acknowledged: () => I18n.t("display.refusal.already_acknowledged"),
    already_called: () => I18n.t("display.refusal.already_called"),
    nothing_to_confirm: () => I18n.t("display.refusal.nothing_to_confirm"),
    result_unconfirmed: () => I18n.t("display.refusal.result_unconfirmed"),
    invalid_limits: () => I18n.t("display.refusal.invalid_limits"),
  };
  // The recall's codes in words: commands, card positions, round states, alarms, prompts.
  const COMMANDS = {
    new_shoe: () => I18n.t("display.command.new_shoe"),
    open_betting: () => I18n.t("display.command.open_betting"),
    close_betting: () => I18n.t("display.command.close_betting"),
    deal: () => I18n.t("display.command.deal"),
    misdeal: () => I18n.t("display.command.misdeal"),
    dropped_card: () => I18n.t("display.command.dropped_card"),
    void_round: () => I18n.t("display.command.void_round"),
    void_shoe: () => I18n.t("display.command.void_shoe"),
    manual_card: () => I18n.t("display.command.manual_card"),
    correct_result: () => I18n.t("display.command.correct_result"),
    confirm_result: () => I18n.t("display.command.confirm_result"),
    dispute: () => I18n.t("display.command.dispute"),
    resolve_dispute: () => I18n.t("display.command.resolve_dispute"),
    acknowledge: () => I18n.t("display.command.acknowledge"),
    acknowledge_alarm: () => I18n.t("display.command.acknowledge_alarm"),
    call_supervisor: () => I18n.t("display.command.call_supervisor"),
    sign_in: () => I18n.t("display.command.sign_in"),
    sign_out: () => I18n.t("display.command.sign_out"),
    recall: () => I18n.t("display.command.recall"),
    set_limits: () => I18n.t("display.command.set_limits"),
  };
  const POSITIONS = {
    player: () => I18n.t("game.player"),
    banker: () => I18n.t("game.banker"),
    burn: () => I18n.t("display.position.burn"),
    discard: () => I18n.t("display.position.discard"),
  };
  const STATUSES = {
    in_play: () => I18n.t("display.status.in_play"),
    settled: () => I18n.t("display.status.settled"),
    voided: () => I18n.t("display.status.voided"),
  };
  const STEPS = {
    betting_opened: () => I18n.t("display.step.betting_opened"),
    betting_closed: () => I18n.t("display.step.betting_closed"),
    shoe_started: () => I18n.t("display.step.shoe_started"),
    last_round: () => I18n.t("display.step.last_round"),
    shoe_ended: () => I18n.t("display.step.shoe_ended"),
    shoe_voided: () => I18n.t("display.step.shoe_voided"),
    dispute_opened: () => I18n.t("display.step.dispute_opened"),
    dispute_resolved: () => I18n.t("display.step.dispute_resolved"),
  };
  const PROMPTS = {
    burn: () => I18n.t("display.prompt.burn"),
    open_betting: () => I18n.t("display.prompt.open_betting"),
    deal: () => I18n.t("display.prompt.deal"),
    player_draws: () => I18n.t("display.prompt.player_draws"),
    banker_draws: () => I18n.t("display.prompt.banker_draws"),
    result: () => I18n.t("display.prompt.result"),
    hold: () => I18n.t("display.prompt.hold"),
    shoe_over: () => I18n.t("display.prompt.shoe_over"),
    sign_in: () => I18n.t("display.prompt.sign_in"),
    confirm_result: () => I18n.t("display.prompt.confirm_result"),
  };
  const STAFF_ACTIONS = {
    sign_in: () => I18n.t("display.command.sign_in"),
    sign_out: () => I18n.t("display.command.sign_out"),
  };
  const ALARMS = {
    unnecessary_card: () => I18n.t("display.alarm.unnecessary_card"),
    foreign_card: () => I18n.t("display.alarm.foreign_card"),
    lost_frames: () => I18n.t("display.alarm.lost_frames"),
    reader_offline: () => I18n.t("display.alarm.reader_offline"),
    misread: () => I18n.t("display.alarm.misread"),
    card_after_last_round: () => I18n.t("display.alarm.card_after_last_round"),
    exposed_card: () => I18n.t("display.alarm.exposed_card"),
    card_without_shoe: () => I18n.t("display.alarm.card_without_shoe"),
    unexpected_cut_card: () => I18n.t("display.alarm.unexpected_cut_card"),
    procedure_fault: () => I18n.t("display.alarm.procedure_fault"),
    edge_positive: () => I18n.t("display.alarm.edge_positive"),
    shuffle_pattern: () => I18n.t("display.alarm.shuffle_pattern"),
    shoe_repeated: () => I18n.t("display.alarm.shoe_repeated"),
    impossible_count: () => I18n.t("display.alarm.impossible_count"),
    lost_frames_left_over: () => I18n.t("display.alarm.lost_frames_left_over"),
    software_modified: () => I18n.t("display.alarm.software_modified"),
    result_not_confirmed: () => I18n.t("display.alarm.result_not_confirmed"),
    supervisor_called: () => I18n.t("display.alarm.supervisor_called"),
  };
  const VOID_REASONS = {
    exposed_card: () => I18n.t("display.void_reason.exposed_card"),
    misdeal: () => I18n.t("display.void_reason.misdeal"),
    dropped_card: () => I18n.t("display.void_reason.dropped_card"),
    misread: () => I18n.t("display.void_reason.misread"),
    after_last_round: () => I18n.t("display.void_reason.after_last_round"),
    shoe_voided: () => I18n.t("display.void_reason.shoe_voided"),
    supervisor: () => I18n.t("display.void_reason.supervisor"),
  };
  // Why a card went to no hand: an alarm, or its round was voided.
  const DISCARDS = { ...ALARMS, voided: () => I18n.t("display.status.voided") };
  // A hold's reason is the alarm that caused it, or an open dispute.
  const HOLD_REASONS = { ...ALARMS, dispute: () => I18n.t("display.step.dispute_opened") };

  /** A code's text from one of the maps above (each a code's text, as a function: the
   * catalogues are read after this script); a code a map lacks shows as it is. */
  const named = (map, code) => (Object.hasOwn(map, code) ? map[code]() : String(code || ""));
  /** A view's text, or a line of them (a list, joined with a dot). */
  const say = (value) =>
    Array.isArray(value) ? value.map(I18n.text).filter(Boolean).join(" · ") : I18n.text(value);

  let table = null;
  let roads = null;
  let alarms = [];

  // --- the connection --------------------------------------------------------------------

  function follow() {
    Screens.follow("/api/events", {
      view: (view) => {
        renderTable(view.table);
        renderRoads(view.roads);
        alarms = view.alarms || [];
        renderAlarms();
      },
      table: renderTable,
      roads: renderRoads,
      alarm: (alarm) => {
        alarms.unshift(alarm);
        alarms = alarms.slice(0, 20);
        renderAlarms();
      },
    }, (reachable) => {
      $("unreachable").hidden = reachable;
      $("link").textContent = reachable ? I18n.t("display.link.live") : I18n.t("display.link.lost");
    });
  }

  // --- the table ---------------------------------------------------------------------------

  function renderHand(name, hand) {
    const cards = (hand && hand.cards) || [];
    $(name + "-cards").replaceChildren(...cards.map(card));
    const total = hand && hand.total !== null && hand.total !== undefined ? hand.total : "";
    $(name + "-total").textContent = total;
  }

  function text(value) {
    return value === null || value === undefined ? "–" : String(value);
  }

  // A count as the page's language writes it.
  function figure(value) {
    return typeof value === "number" ? I18n.number(value) : text(value);
  }

  function renderTable(view) {
    if (!view) return;
    table = view;
    const state = view.state || {};
    $("table-id").textContent = text(state.table_id);
    $("variant").textContent = I18n.text(view.variant);
    $("shoe-id").textContent = state.shoe_id
      ? I18n.t("display.shoe_id", { shoe_id: state.shoe_id }) : I18n.t("display.no_shoe");
    $("round-no").textContent = figure(state.round_no);
    $("cards-left").textContent = figure(state.cards_left);
    $("cards-seen").textContent = figure(state.cards_seen);
    $("phase").textContent = state.phase ? named(PHASES, state.phase) : "–";
    const prompt = view.prompt || {};
    $("prompt").textContent = say(prompt.text);
    $("prompt-detail").textContent = say(prompt.detail);
    $("prompt-box").dataset.tone = prompt.tone || "idle";
    $("last-round").hidden = !(state.last_round && state.phase !== "shoe_over");
    const hands = view.hands || {};
    renderHand("player", hands.player);
    renderHand("banker", hands.banker);
    const oversight = view.oversight || {};
    $("void-round-id").placeholder = oversight.round_id || "";
    $("dispute-rounds").placeholder = oversight.round_id || "";
    renderDispute(oversight.dispute);
    renderOpenAlarms(oversight);
    renderLimits(view.limits);
    renderStaff(view.staff || {});
    renderCommands(new Set(view.commands || []), new Set(oversight.acknowledge || []));
    renderAlarms();
  }

  // The open alarms in the supervisor's panel, the newest first, each with its
  // acknowledgement; drawn again only when they change, so a button is never swapped under
  // the supervisor's finger.
  let openShown = "";
  function renderOpenAlarms(oversight) {
    const open = (oversight.alarms || []).slice(0, OPEN_ALARMS_SHOWN);
    const more = (oversight.open_alarms || 0) - open.length;
    const shown = JSON.stringify([open.map((alarm) => alarm.alarm_id), more, I18n.lang]);
    if (shown === openShown) return;
    openShown = shown;
    const items = open.map((alarm) => {
      const item = make("span", "open-alarm");
      item.title = alarm.message || ""; // the controller's words, for a technician
      item.append(make("b", null, say(alarm.text)));
      if (alarm.round_id) item.append(make("span", null, alarm.round_id));
      const button = make("button", null, I18n.t("display.command.acknowledge_alarm"));
      button.type = "button";
      button.dataset.command = "acknowledge_alarm";
      button.dataset.alarmId = alarm.alarm_id;
      button.dataset.supervisor = "";
      item.append(button);
      return item;
    });
    if (more > 0) {
      items.push(make("span", "open-alarm-more", I18n.t("display.alarms.more", { count: more })));
    }
    $("open-alarms").replaceChildren(...items);
  }

  // An open dispute: a banner for the dealer, and what the supervisor resolves.
  function renderDispute(dispute) {
    $("dispute-banner").hidden = !dispute;
    $("dispute-open").hidden = !dispute;
    $("dispute-text").textContent = dispute ? say(dispute.text) : "";
    $("dispute-detail").textContent = dispute ? say(dispute.detail) : "";
    $("dispute-open").textContent = dispute ? say([dispute.text, ...dispute.detail]) : "";
  }

  // The table's stake limits: the main bets' range in the header; every bet's in the
  // supervisor's form, where one is chosen and changed.
  function renderLimits(limits) {
    const main = limits && limits.main;
    $("limits-figure").hidden = !main;
    $("limits").textContent = main ? range(limits.currency, main) : "–";
    const select = $("limits-bet");
    const chosen = select.value;
    select.replaceChildren(...((limits && limits.bets) || []).map((bet) => {
      const option = make("option", null, I18n.text(bet.name)
        + (bet.min === null ? "" : " " + range(limits.currency, bet)));
      option.value = bet.bet;
      option.dataset.min = bet.min === null ? "" : String(bet.min);
      option.dataset.max = bet.max === null ? "" : String(bet.max);
      return option;
    }));
    if ([...select.options].some((option) => option.value === chosen)) select.value = chosen;
    limitsChosen();
  }

  // Amounts in full, as the table publishes them (no currency's minor unit has more than four
  // decimals).
  const EXACT = { maximumFractionDigits: 4 };

  function range(currency, limits) {
    return I18n.t("display.limits.range", {
      currency, min: I18n.number(limits.min, EXACT), max: I18n.number(limits.max, EXACT),
    });
  }

  // The chosen bet's limits now, beneath what the supervisor types.
  function limitsChosen() {
    const option = $("limits-bet").selectedOptions[0];
    $("limits-min").placeholder = option ? option.dataset.min : "";
    $("limits-max").placeholder = option ? option.dataset.max : "";
  }
  $("limits-bet").addEventListener("change", limitsChosen);

  // Who is signed in, and the pace; the sign-in panel only on a table with a staff register.
  function renderStaff(staff) {
    const register = Boolean(staff.register);
    for (const node of document.querySelectorAll(".staff-figure, .supervisor-id")) {
      node.hidden = !register;
    }
    $("staff").hidden = !register;
    const dealer = staff.dealer;
    $("dealer").textContent = dealer ? dealer.name : I18n.t("display.dealer.none");
    $("dealer").title = dealer ? dealer.id : "";
    const pace = staff.rounds_per_hour;
    $("pace").textContent = pace === null || pace === undefined ? "–"
      : I18n.t("display.pace.value", { rounds: Math.round(pace) });
    const who = [dealer ? I18n.t("display.staff.dealer", { name: dealer.name })
      : I18n.t("display.staff.no_dealer")];
    if (staff.supervisor) {
      who.push(I18n.t("display.staff.supervisor", { name: staff.supervisor.name }));
    }
    $("staff-summary").textContent = who.join(" · ");
  }

  // Only the commands the table takes now have a button (the controller says which); an
  // acknowledgement only for a hold that stands.
  function renderCommands(offered, acknowledge) {
    for (const button of document.querySelectorAll("button[data-command]:not([data-always])")) {
      const command = button.dataset.command;
      button.hidden = !offered.has(command)
        || (command === "acknowledge" && !acknowledge.has(JSON.parse(button.dataset.args).alarm));
    }
    for (const group of document.querySelectorAll(".supervisor-panel .group")) {
      group.hidden = !group.querySelector("button:not([hidden])");
    }
    for (const row of document.querySelectorAll(".supervisor-panel .row")) {
      // The row with the PIN stays while any supervisor command is offered.
      row.hidden = !row.querySelector("button:not([hidden]), .dispute-open:not([hidden]), #pin");
    }
    $("supervisor").hidden = !document.querySelector("button[data-supervisor]:not([hidden])");
    supervising();
  }

  // The supervisor's panel lies over the scoreboards while the Supervisor fold is open.
  function supervising() {
    document.body.classList.toggle("supervising", $("supervisor").open && !$("supervisor").hidden);
  }
  $("supervisor").addEventListener("toggle", supervising);

  // --- the scoreboards -----------------------------------------------------------------------

  // The cell sizes for the room the scoreboards have: six rows of the bead plate and the Big
  // Road, at least MIN_COLUMNS across, and below them the derived roads at about half size.
  function fitRoads() {
    const section = document.querySelector(".roads");
    const style = getComputedStyle(section);
    const captions = 2 * (document.querySelector(".roads figcaption").offsetHeight + 2);
    const height = section.clientHeight - parseFloat(style.paddingTop)
      - parseFloat(style.paddingBottom) - parseFloat(style.rowGap) - captions;
    const across = (id) => $(id).parentElement.clientWidth;
    const cell = Math.max(6, Math.floor(Math.min(
      (height * 0.62) / ROWS, across("bead-plate") / MIN_COLUMNS.bead,
      across("big-road") / MIN_COLUMNS.big)));
    const derived = Math.max(4, Math.floor(Math.min(
      (height - ROWS * cell) / ROWS, across("big-eye-boy") / MIN_COLUMNS.derived, cell * 0.6)));
    section.style.setProperty("--cell", cell + "px");
    section.style.setProperty("--derived-cell", derived + "px");
    return { cell, derived };
  }

  function derivedMark(road, colour) {
    const node = make("span", "mark " + road + " " + colour);
    node.title = named(ROAD_NAMES, road) + ": " + named(COLOURS, colour);
    return node;
  }

  function bead(cell) {
    return pairs(make("span", "bead " + cell.winner, named(BEADS, cell.winner)), cell);
  }

  function renderRoads(view) {
    roads = view;
    // The figures beside the roads first: their width sets the room the boards have.
    for (const [id, ask] of [["ask-banker", view && view.ask_banker], ["ask-player", view && view.ask_player]]) {
      const marks = ROADS.map((road) =>
        ask && ask[road] ? derivedMark(road, ask[road]) : make("span", "none", "–"));
      $(id).querySelector(".ask-marks").replaceChildren(...marks);
    }
    renderStats(view && view.stats);
    const size = fitRoads();
    const width = (view && view.width) || {};
    fill($("bead-plate"), (view && view.bead_plate) || [], width.bead_plate || 0, size.cell, bead);
    fill($("big-road"), (view && view.big_road) || [], width.big_road || 0, size.cell, ring);
    for (const road of ROADS) {
      const grid = document.querySelector('[data-road="' + road + '"]');
      const marks = (view && view[road]) || [];
      fill(grid, marks, width[road] || 0, size.derived, (m) => derivedMark(road, m.colour));
    }
  }

  function renderStats(stats) {
    const box = $("stats");
    if (!stats) {
      box.replaceChildren();
      return;
    }
    const item = (label, value, className) => {
      const span = make("span", className, label + " ");
      span.append(make("b", null, figure(value)));
      return span;
    };
    box.replaceChildren(
      item(I18n.t("game.banker"), stats.banker, "b"),
      item(I18n.t("game.player"), stats.player, "p"),
      item(I18n.t("game.tie"), stats.tie, "t"), item(I18n.t("game.naturals"), stats.natural),
      item(I18n.t("game.banker_pair"), stats.banker_pair),
      item(I18n.t("game.player_pair"), stats.player_pair),
      item(I18n.t("display.stats.rounds"), stats.rounds),
    );
  }

  // --- alarms ----------------------------------------------------------------------------------

  // The newest alarms, as many as fit in the room the list has (never a scroll bar); those
  // still open stand out, and the heading counts every open alarm.
  function renderAlarms() {
    const oversight = (table && table.oversight) || {};
    const open = new Set((oversight.alarms || []).map((alarm) => alarm.alarm_id));
    const count = oversight.open_alarms || 0;
    $("alarms-open").hidden = count === 0;
    $("alarms-open").textContent = count ? I18n.t("display.alarms.open", { count }) : "";
    const list = $("alarms");
    const items = alarms.slice(0, ALARMS_SHOWN).map((alarm) => {
      const li = make("li", alarm.kind === "void" ? "void" : "alarm");
      if (alarm.alarm_id && open.has(alarm.alarm_id)) li.classList.add("open");
      const when = new Date(alarm.ts);
      const ts = Number.isNaN(when.getTime()) ? "" : when.toLocaleTimeString([], { hour12: false });
      li.append(make("time", null, ts), make("b", null, say(alarm.text)));
      if (alarm.message) li.title = alarm.message; // the controller's words, for a technician
      return li;
    });
    list.replaceChildren(...items);
    while (list.lastElementChild && list.scrollHeight > list.clientHeight) {
      list.lastElementChild.remove();
    }
  }

  // A resized window, an opened supervisor panel, a banner or a new row of buttons changes the
  // room the boards and the alarm list have: draw them again, once per frame, to fit.
  let refit = 0;
  const fitAgain = new ResizeObserver(() => {
    cancelAnimationFrame(refit);
    refit = requestAnimationFrame(() => {
      renderRoads(roads);
      renderAlarms();
      if (recalled.length) renderRecall();
    });
  });
  for (const room of document.querySelectorAll(".roads, .board, .alarms ol, .recall-rounds")) {
    fitAgain.observe(room);
  }

  // --- the last rounds (recall) ----------------------------------------------------------------

  let recalled = []; // newest first
  let recallFirst = 0; // the newest round shown

  function clock(ts) {
    const when = new Date(ts);
    return Number.isNaN(when.getTime()) ? "" : when.toLocaleTimeString([], { hour12: false });
  }

  function handWords(side, hand) {
    return hand ? I18n.t("display.step.hand", {
      side: named(SIDES, side), total: hand.total, cards: (hand.cards || []).join(" "),
    }) : "";
  }

  function by(step, words) {
    const who = step.supervisor && step.supervisor !== step.operator
      ? I18n.t("display.step.operator_supervisor", {
        operator: step.operator || "", supervisor: step.supervisor })
      : step.operator;
    return who ? I18n.t("display.step.by", { step: words, who }) : words;
  }

  function why(words, reason, map) {
    return reason ? I18n.t("display.step.why", { step: words, reason: named(map, reason) }) : words;
  }

  // One step of a round in words: what happened, with who did it.
  function stepWords(step) {
    switch (step.kind) {
      case "card": {
        const code = step.card || I18n.t("display.step.unread");
        const position = named(POSITIONS, step.position);
        const card = I18n.t("display.step.card", { card: code, position });
        const where = why(card, step.reason, DISCARDS);
        return step.source === "manual" ? by(step, I18n.t("display.step.entered", { step: where }))
          : where;
      }
      case "prompt": {
        const action = step.count
          ? I18n.t("display.prompt.burn_count", { count: step.count })
          : named(PROMPTS, step.action);
        return why(I18n.t("display.step.prompt", { action }), step.reason, HOLD_REASONS);
      }
      case "command": {
        const done = by(step, named(COMMANDS, step.command));
        return step.ok === false ? I18n.t("display.step.refused", {
          step: done, reason: named(REFUSALS, step.error) }) : done;
      }
      case "result":
      case "correction": {
        const words = [
          step.kind === "correction"
            ? I18n.t("display.step.correction", { number: step.correction_no || "" })
            : I18n.t("display.step.result"),
          named(WINNERS, step.winner),
          handWords("player", step.player),
          handWords("banker", step.banker),
        ].join(" · ");
        return step.kind === "correction" ? by(step, words) : words;
      }
      case "void":
        return by(step, why(I18n.t("display.status.voided"), step.reason, VOID_REASONS));
      case "alarm":
        return named(ALARMS, step.code);
      case "staff":
        return named(STAFF_ACTIONS, step.action) + " " + (step.staff_id || "");
      default: {
        const words = named(STEPS, step.kind) + (step.shoe_id ? " " + step.shoe_id : "");
        return step.dispute_id ? words + " " + step.dispute_id : words;
      }
    }
  }

  function stepNode(step) {
    const refused = step.kind === "command" && step.ok === false;
    const li = make("li", "step-" + (refused ? "refused" : step.kind), stepWords(step));
    li.title = clock(step.ts) + (step.message ? " " + step.message : "");
    return li;
  }

  function roundNode(round) {
    const li = make("li");
    li.dataset.roundId = round.round_id;
    const head = make("div", "recall-round-head");
    const status = make("span", "status-" + round.status, named(STATUSES, round.status));
    const first = (round.steps || [])[0];
    head.append(make("span", null, round.round_id), status);
    if (first) head.append(make("time", null, clock(first.ts)));
    if (round.dealer) {
      head.append(make("span", null, I18n.t("display.staff.dealer", { name: round.dealer })));
    }
    const pick = make("button", null, I18n.t("display.recall.pick"));
    pick.type = "button";
    pick.dataset.pick = round.round_id;
    head.append(pick);
    const steps = make("ol", "steps");
    steps.replaceChildren(...(round.steps || []).map(stepNode));
    li.append(head, steps);
    return li;
  }

  // The rounds from recallFirst on, as many as fit; a round too long for the room alone shows
  // its first steps and says how many more it has.
  function renderRecall() {
    const list = $("recall-rounds");
    recallFirst = Math.max(0, Math.min(recallFirst, recalled.length - 1));
    list.replaceChildren(...recalled.slice(recallFirst).map(roundNode));
    while (list.children.length > 1 && list.scrollHeight > list.clientHeight) {
      list.lastElementChild.remove();
    }
    const only = list.firstElementChild;
    const steps = only ? only.querySelector(".steps") : null;
    let cut = 0;
    while (steps && steps.children.length > 1 && list.scrollHeight > list.clientHeight) {
      steps.lastElementChild.remove();
      cut += 1;
    }
    if (cut > 0) {
      steps.lastElementChild.remove();
      steps.append(make("li", "step-more", I18n.t("display.recall.more", { steps: cut + 1 })));
    }
    $("recall-newer").hidden = recallFirst === 0;
    $("recall-older").hidden = recallFirst + list.children.length >= recalled.length;
  }

  $("recall-newer").addEventListener("click", () => {
    recallFirst -= 1;
    renderRecall();
  });
  $("recall-older").addEventListener("click", () => {
    recallFirst += 1;
    renderRecall();
  });

  // A round of the recall is added to the rounds of a dispute being opened.
  function pickRound(roundId) {
    const field = $("dispute-rounds");
    const rounds = words(field.value);
    if (!rounds.includes(roundId)) field.value = [...rounds, roundId].join(" ");
  }

  // --- commands --------------------------------------------------------------------------------

  // Cards or round ids as typed, one word each (blanks or commas between them).
  function words(typed) {
    return typed.split(/[\s,]+/).filter((word) => word !== "");
  }

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
      case "correct_result": {
        const typed = $("void-round-id").value.trim();
        args.round_id = typed || $("void-round-id").placeholder;
        args.player = words($("correct-player").value);
        args.banker = words($("correct-banker").value);
        break;
      }
      case "confirm_result":
        args.round_id = (table && table.state && table.state.unconfirmed_round_id) || "";
        break;
      case "acknowledge_alarm": {
        args.alarm_id = button.dataset.alarmId;
        const comment = $("alarm-comment").value.trim();
        if (comment) args.comment = comment; // none is sent rather than an empty one
        break;
      }
      case "dispute":
        args.reason = $("dispute-reason").value.trim();
        args.rounds = words($("dispute-rounds").value || $("dispute-rounds").placeholder);
        break;
      case "resolve_dispute": {
        const dispute = table && table.oversight && table.oversight.dispute;
        args.dispute_id = dispute ? dispute.dispute_id : "";
        args.outcome = $("dispute-outcome").value.trim();
        break;
      }
      case "set_limits": {
        // As typed (the controller reads amounts exactly); a field left empty keeps its value.
        const typed = (id) => $(id).value.trim() || $(id).placeholder;
        args.limits = { [$("limits-bet").value]: { min: typed("limits-min"), max: typed("limits-max") } };
        break;
      }
      case "sign_in":
        args.staff_id = $("staff-id").value.trim();
        args.pin = $("staff-pin").value;
        break;
      case "sign_out": {
        // The id typed, else the dealer signed in now.
        const dealer = table && table.staff && table.staff.dealer;
        args.staff_id = $("staff-id").value.trim() || (dealer ? dealer.id : "");
        break;
      }
      default:
        break;
    }
    return args;
  }

  function report(ok, message, detail) {
    const status = $("command-status");
    status.dataset.ok = String(ok);
    status.textContent = message;
    status.title = detail || "";
  }

  async function send(button) {
    const command = button.dataset.command;
    const body = { command, args: commandArgs(button) };
    if (button.hasAttribute("data-supervisor")) {
      // The PIN goes with one command only: a dealer left at the screen cannot reuse it.
      body.pin = $("pin").value;
      $("pin").value = "";
      if (!$("supervisor-id").closest("label").hidden) body.staff_id = $("supervisor-id").value.trim();
    }
    if (command === "sign_in" || command === "sign_out") {
      $("staff-pin").value = "";
      $("staff-id").value = "";
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
        report(true, I18n.t("display.status.done", { command: label }));
        if (command === "manual_card") $("manual-card").value = "";
        if (command === "void_round" || command === "correct_result") $("void-round-id").value = "";
        const done = {
          correct_result: ["correct-player", "correct-banker"],
          dispute: ["dispute-reason", "dispute-rounds"],
          resolve_dispute: ["dispute-outcome"],
          acknowledge_alarm: ["alarm-comment"],
          set_limits: ["limits-min", "limits-max"],
        };
        for (const id of done[command] || []) $(id).value = "";
        if (command === "recall") {
          recalled = (reply.rounds || []).slice().reverse();
          recallFirst = 0;
          renderRecall();
        }
      } else {
        const why = Object.hasOwn(REFUSALS, reply.error) ? REFUSALS[reply.error]()
          : I18n.t("display.refusal.other", { code: String(reply.error || response.status) });
        report(false, I18n.t("display.status.refused", { command: label, reason: why }),
          reply.message);
      }
    } catch (error) {
      report(false, I18n.t("display.status.no_answer", { command: label }));
    } finally {
      button.disabled = false;
    }
  }

  $("supervisor-form").addEventListener("submit", (event) => event.preventDefault());
  $("staff-form").addEventListener("submit", (event) => event.preventDefault());

  // The on-screen keypad types into the PIN. A badge reader types the id as a keyboard does,
  // then Enter: the PIN is next; Enter there signs in.
  function key(which) {
    const pin = $("staff-pin");
    if (which === "clear") pin.value = "";
    else if (which === "back") pin.value = pin.value.slice(0, -1);
    else if (pin.value.length < 12) pin.value += which;
  }
  $("staff-id").addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault();
      $("staff-pin").focus();
    }
  });
  $("staff-pin").addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault();
      send(document.querySelector('button[data-command="sign_in"]'));
    }
  });
  $("staff").addEventListener("toggle", () => {
    if ($("staff").open) $("staff-id").focus();
  });

  document.addEventListener("click", (event) => {
    const pad = event.target.closest("button[data-key]");
    if (pad) {
      key(pad.dataset.key);
      return;
    }
    const pick = event.target.closest("button[data-pick]");
    if (pick) {
      pickRound(pick.dataset.pick);
      return;
    }
    const button = event.target.closest("button[data-command]");
    if (button) send(button);
  });

  // The texts first (the address's ?lang=, else the display's setting): then the table.
  I18n.load("display").then(follow, (error) => {
    console.error(error);
    follow();
  });
})();
