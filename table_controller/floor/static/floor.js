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

  /** The areas and their tiles, drawn again only where a tile changed. */
  function drawAreas() {
    const holder = $("areas");
    const wanted = areas.map((area) => area.name).join("\u0000");
    if (holder.dataset.areas !== wanted) {
      holder.dataset.areas = wanted;
      holder.replaceChildren(...areas.map((area) => {
        const section = make("section", "area");
        section.dataset.area = area.name;
        const heading = make("h2", "area-name", areaName(area));
        const list = make("div", "tiles");
        section.append(heading, list);
        return section;
      }));
    }
    areas.forEach((area, index) => {
      const section = holder.children[index];
      section.querySelector(".area-name").textContent = areaName(area);
      const list = section.querySelector(".tiles");
      const present = new Map([...list.children].map((node) => [node.dataset.table, node]));
      const nodes = area.tables.map((tableId) => {
        const tile = tiles.get(tableId);
        const old = present.get(tableId);
        if (!tile) return old || make("article", "tile empty");
        if (old && old.dataset.seq === String(tile.seq || 0) && old.dataset.drawn === tile.drawnAs) {
          return old;
        }
        const fresh = Floor.drawTile(tile);
        fresh.dataset.drawn = tile.drawnAs;
        return fresh;
      });
      list.replaceChildren(...nodes);
    });
    const counts = { online: 0, offline: 0, alarmed: 0 };
    for (const tile of tiles.values()) {
      if (tile.online === true) counts.online += 1;
      if (tile.online === false) counts.offline += 1;
      if (tile.open_alarm_count) counts.alarmed += 1;
    }
    $("counts").textContent = I18n.t("floor.counts", counts);
  }

  function take(changed) {
    for (const [tableId, tile] of Object.entries(changed)) {
      // What a tile shows depends on more than its seq (a status has none): draw it again.
      tile.drawnAs = JSON.stringify([tile.online, tile.reader, tile.seq, tile.open_alarm_count,
        tile.strip.length, I18n.lang]);
      tiles.set(tableId, tile);
    }
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
      drawAreas();
      drawAlarmList();
      document.body.dataset.ready = "yes";
    },
    tiles(event) {
      areas = event.areas;
      take(event.tiles);
      drawAreas();
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
    for (const tile of tiles.values()) tile.drawnAs = "";
    take(Object.fromEntries(tiles));
    drawAreas();
    $("alarm-items").replaceChildren();
    drawAlarmList();
  }

  Floor.boot(
    () => { $("floor").hidden = false; stream.start(); },
    () => { $("floor").hidden = true; stream.stop(); document.body.dataset.ready = "no"; },
    redraw,
  );
})();
