// Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
// A table's page: its tile and open alarms, live (the floor's event stream), and its history
// from the database: the last rounds with every bet's settlement, voids and corrections and who
// made them, its alarms with their acknowledgements, its dealers' stints.
"use strict";

(() => {
  const { $, make } = Floor;
  const tableId = decodeURIComponent(window.location.pathname.split("/").pop());
  let tile = null;
  let history = null;
  let loading = null;
  let lastRound = null;
  let refreshAfter = null;

  function drawTileAndAlarms() {
    $("title").textContent = tableId;
    document.title = I18n.t("floor.table.title_of", { table_id: tableId });
    const holder = $("tile");
    holder.replaceChildren(...(tile ? [Floor.drawTile(tile, false)] : []));
    const alarms = tile ? [...tile.alarms].reverse() : [];
    $("no-alarms").hidden = alarms.length > 0;
    Floor.drawAlarms($("alarm-items"), alarms, () => scheduleHistory(500));
  }

  function cards(text) {
    const holder = make("span", "cards-text");
    for (const code of (text || "").split(" ").filter(Boolean)) {
      const red = code[1] === "H" || code[1] === "D";
      holder.append(make("span", red ? "c red" : "c", code.replace("T", "10")
        .replace("H", "\u2665").replace("D", "\u2666").replace("S", "\u2660").replace("C", "\u2663")));
    }
    return holder;
  }

  function winnerText(winner) {
    return winner ? I18n.t(`game.winner.${winner}`) : "–";
  }

  function versionText(version) {
    const who = version.supervisor || version.operator || "–";
    if (version.kind === "voided") {
      const reason = Floor.say(`display.void_reason.${version.void_reason}`, {}, version.void_reason || "");
      return I18n.t("floor.table.version.voided", { who, reason, time: Floor.time(version.ts) });
    }
    if (version.kind === "corrected") {
      return I18n.t("floor.table.version.corrected", {
        who, number: version.correction_no, winner: winnerText(version.winner), time: Floor.time(version.ts),
      });
    }
    return I18n.t("floor.table.version.result", { winner: winnerText(version.winner), time: Floor.time(version.ts) });
  }

  function drawRounds(rounds) {
    $("no-rounds").hidden = rounds.length > 0;
    $("rounds").hidden = rounds.length === 0;
    const body = $("rounds").querySelector("tbody");
    body.replaceChildren(...rounds.map((round) => {
      const row = make("tr", `round ${round.status}`);
      row.dataset.round = round.round_id;
      row.dataset.status = round.status;
      const cell = (content, className) => {
        const td = make("td", className);
        if (content instanceof Node) td.append(content); else td.textContent = content;
        row.append(td);
        return td;
      };
      cell(round.round_id, "round-id");
      cell(Floor.time(round.result_ts || round.ts), "when");
      cell(round.dealer || "–", "dealer");
      const player = cell(cards(round.player_cards), "player");
      player.append(make("b", "total", round.player_total ?? ""));
      const banker = cell(cards(round.banker_cards), "banker");
      banker.append(make("b", "total", round.banker_total ?? ""));
      const result = cell(winnerText(round.winner), `result ${round.winner || ""}`);
      result.append(make("small", "status", I18n.t(`floor.table.status.${round.status}`)));
      const settlement = make("ul", "settlement");
      for (const [bet, amount] of Object.entries(round.settlement || {})) {
        if (amount === null) continue;
        const item = make("li", Number(amount) > 0 ? "won" : Number(amount) < 0 ? "lost" : "push");
        item.dataset.bet = bet;
        item.append(make("span", "bet", Floor.say(`game.bet.${bet}`, {}, bet)), make("b", "amount", amount));
        settlement.append(item);
      }
      cell(settlement, "settlement-cell");
      const changes = make("ul", "versions");
      for (const version of round.versions || []) {
        if (version.kind === "result") continue;
        const item = make("li", `version ${version.kind}`, versionText(version));
        item.dataset.kind = version.kind;
        item.dataset.who = version.supervisor || version.operator || "";
        changes.append(item);
      }
      cell(changes, "changes");
      return row;
    }));
  }

  function drawTableAlarms(alarms) {
    $("no-table-alarms").hidden = alarms.length > 0;
    $("table-alarms").replaceChildren(...alarms.map((alarm) => {
      const item = make("li", alarm.acknowledged ? "acknowledged" : "open");
      item.dataset.alarm = alarm.alarm_id || "";
      item.append(
        make("time", "when", Floor.time(alarm.ts)),
        make("b", "alarm-code", Floor.alarmCode(alarm)),
        make("span", "alarm-id", alarm.alarm_id || ""),
        make("div", "alarm-message", alarm.message),
      );
      const ack = alarm.acknowledged;
      const answer = ack
        ? I18n.t("floor.table.acknowledged_by", { supervisor: ack.supervisor || "–", time: Floor.time(ack.ts) })
        : I18n.t("floor.table.open");
      const line = make("div", "acknowledgement", answer);
      if (ack && ack.comment) line.append(make("q", "comment", ack.comment));
      item.append(line);
      return item;
    }));
  }

  function drawStints(stints) {
    $("no-stints").hidden = stints.length > 0;
    $("stints").hidden = stints.length === 0;
    $("stints").querySelector("tbody").replaceChildren(...stints.map((stint) => {
      const row = make("tr", "stint");
      row.dataset.dealer = stint.dealer;
      row.append(
        make("td", "dealer", stint.dealer),
        make("td", "since", Floor.time(stint.since)),
        make("td", "until", stint.until ? Floor.time(stint.until) : I18n.t("floor.table.still")),
        make("td", "rounds", I18n.number(stint.rounds)),
      );
      return row;
    }));
  }

  function drawHistory() {
    if (!history) return;
    drawRounds(history.rounds);
    drawTableAlarms(history.alarms);
    drawStints(history.stints);
  }

  async function loadHistory() {
    if (loading) return loading;
    loading = (async () => {
      const answer = await Floor.api("GET", `/api/tables/${encodeURIComponent(tableId)}`);
      loading = null;
      if (answer.status === 404) {
        $("not-found").hidden = false;
        $("not-found").textContent = I18n.t("floor.error.unknown_table", { table_id: tableId });
        $("table-body").hidden = true;
        document.body.dataset.ready = "unknown_table";
        scheduleHistory(5000);
        return;
      }
      if (answer.status !== 200) { scheduleHistory(5000); return; }
      $("not-found").hidden = true;
      $("table-body").hidden = false;
      const body = answer.body;
      if (body.tile && !tile) { tile = body.tile; drawTileAndAlarms(); }
      const problem = $("history-problem");
      problem.hidden = !body.problem;
      problem.textContent = body.problem ? I18n.t("floor.table.history_unavailable", { detail: body.problem }) : "";
      if (body.history) {
        history = body.history;
        drawHistory();
        document.body.dataset.ready = "yes";
      } else {
        document.body.dataset.ready = body.problem ? "no_history" : "yes";
      }
      if (body.problem) scheduleHistory(5000);
    })();
    return loading;
  }

  function scheduleHistory(ms) {
    clearTimeout(refreshAfter);
    refreshAfter = setTimeout(loadHistory, ms);
  }

  const stream = Floor.follow({
    view(view) {
      Floor.drawProblems(view.problems);
      if (view.tiles[tableId]) tile = view.tiles[tableId];
      drawTileAndAlarms();
      loadHistory();
    },
    tiles(event) {
      const changed = event.tiles[tableId];
      if (!changed) return;
      tile = changed;
      drawTileAndAlarms();
      const round = `${changed.round_no} ${changed.phase} ${changed.open_alarm_count}`;
      if (round !== lastRound) { lastRound = round; scheduleHistory(1500); }
    },
    alarms() {},
    problems(event) {
      Floor.drawProblems(event);
      if (!event.database) scheduleHistory(200);
    },
  });

  Floor.boot(
    () => { $("table-page").hidden = false; stream.start(); },
    () => { $("table-page").hidden = true; stream.stop(); document.body.dataset.ready = "no"; },
    () => { drawTileAndAlarms(); drawHistory(); },
  );
})();
