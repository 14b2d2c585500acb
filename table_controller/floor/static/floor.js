// Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
// The floor's page: one tile per table, grouped by pit or area, and every open alarm of the
// floor, oldest first; kept live by the floor's event stream (floor-common.js), never reloaded.
"use strict";

(() => {
  const { $, make } = Floor;
  let areas = [];
  const tiles = new Map();
  let alarms = [];

  function areaName(area) {
    return area.name === "" ? I18n.t("floor.area.others") : area.name;
  }

  function tileNode(tableId) {
    const tile = tiles.get(tableId);
    if (!tile) {
      const empty = make("article", "tile empty");
      empty.dataset.table = tableId;
      return empty;
    }
    return Floor.drawTile(tile);
  }

  /**
   * The areas and their tiles. Only the tiles in `changed` are drawn again, each in its
   * place; the whole is laid out anew when the areas or their tables change (or `changed` is
   * null), so a busy floor costs the browser a few tiles a tenth of a second, not the page.
   */
  function drawAreas(changed) {
    const holder = $("areas");
    const layout = JSON.stringify(areas.map((area) => [area.name, area.tables]));
    if (holder.dataset.layout !== layout || changed === null) {
      holder.dataset.layout = layout;
      holder.replaceChildren(...areas.map((area) => {
        const section = make("section", "area");
        section.dataset.area = area.name;
        const list = make("div", "tiles");
        list.replaceChildren(...area.tables.map(tileNode));
        section.append(make("h2", "area-name", areaName(area)), list);
        return section;
      }));
    } else {
      for (const tableId of changed) {
        const old = holder.querySelector(`.tile[data-table="${CSS.escape(tableId)}"]`);
        if (old) old.replaceWith(tileNode(tableId));
      }
    }
    const counts = { online: 0, offline: 0, alarmed: 0 };
    for (const tile of tiles.values()) {
      if (tile.online === true) counts.online += 1;
      if (tile.online === false) counts.offline += 1;
      if (tile.open_alarm_count) counts.alarmed += 1;
    }
    $("counts").textContent = I18n.t("floor.counts", counts);
  }

  function take(changed) {
    for (const [tableId, tile] of Object.entries(changed)) tiles.set(tableId, tile);
    return Object.keys(changed);
  }

  function drawAlarmList() {
    $("alarm-count").textContent = alarms.length ? I18n.number(alarms.length) : "";
    $("no-alarms").hidden = alarms.length > 0;
    Floor.drawAlarms($("alarm-items"), alarms, (alarm) => {
      document.body.dataset.lastAcknowledged = `${alarm.table_id} ${alarm.alarm_id}`;
    });
  }

  const stream = Floor.follow({
    view(view) {
      areas = view.areas;
      tiles.clear();
      take(view.tiles);
      alarms = view.alarms;
      Floor.drawProblems(view.problems);
      drawAreas(null);
      drawAlarmList();
      document.body.dataset.ready = "yes";
    },
    tiles(event) {
      areas = event.areas;
      drawAreas(take(event.tiles));
    },
    alarms(event) {
      alarms = event.alarms;
      drawAlarmList();
    },
    problems(event) {
      Floor.drawProblems(event);
    },
  });

  function redraw() {
    drawAreas(null);
    $("alarm-items").replaceChildren();
    drawAlarmList();
  }

  Floor.boot(
    () => { $("floor").hidden = false; stream.start(); },
    () => { $("floor").hidden = true; stream.stop(); document.body.dataset.ready = "no"; },
    redraw,
  );
})();
