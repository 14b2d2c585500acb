// Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
// What the floor's pages share: the session and the sign-in, the language, the live stream of
// the floor (screen.js's, reconnected when it drops or falls silent), a table's tile, the open
// alarms with their acknowledgement, and the problems banner. Loaded after i18n.js and
// screen.js; no framework.
"use strict";

const Floor = (() => {
  const { $, make } = Screens;
  const LANGUAGES = [
    ["en", "English"], ["zh-Hans", "简体中文"], ["zh-Hant", "繁體中文"],
    ["vi", "Tiếng Việt"], ["th", "ไทย"], ["ko", "한국어"],
  ];
  let session = null;
  let onSignedIn = () => {};
  let onSignedOut = () => {};
  let problems = { broker: null, database: null };

  // --- texts and times -----------------------------------------------------------------------

  /** A text of the floor's catalogue, or `fallback` (a server's own words) when it has none. */
  function say(key, args = {}, fallback = null) {
    return I18n.has(key) || fallback === null ? I18n.t(key, args) : fallback;
  }

  function time(iso) {
    if (!iso) return "–";
    const when = new Date(iso);
    if (Number.isNaN(when.getTime())) return "–";
    return new Intl.DateTimeFormat(I18n.lang, {
      month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit",
    }).format(when);
  }

  async function useLanguage(tag) {
    const url = new URL(window.location.href);
    if (tag) url.searchParams.set("lang", tag);
    window.history.replaceState(null, "", url);
    await I18n.load("floor");
    markLanguage();
  }

  function markLanguage() {
    for (const button of $("language").children) {
      button.setAttribute("aria-pressed", String(button.dataset.lang === I18n.lang));
    }
  }

  /** One button per language, each name written in its own language and face. */
  function languagePicker(redraw) {
    const holder = $("language");
    for (const [tag, name] of LANGUAGES) {
      const button = make("button", "language-choice", name);
      button.type = "button";
      button.lang = tag;
      button.dataset.lang = tag;
      button.addEventListener("click", async () => {
        await useLanguage(tag);
        redraw();
        drawWho();
        drawProblems(problems);
      });
      holder.append(button);
    }
    markLanguage();
  }

  // --- the session ---------------------------------------------------------------------------

  async function api(method, path, body) {
    const options = { method, headers: {}, credentials: "same-origin", cache: "no-store" };
    if (method !== "GET") {
      options.headers["Content-Type"] = "application/json";
      options.headers["X-CSRF-Token"] = session ? session.csrf : "";
      options.body = JSON.stringify(body || {});
    }
    let response;
    try {
      response = await fetch(path, options);
    } catch (error) {
      return { status: 0, body: { ok: false, error: "unreachable", message: String(error) } };
    }
    let data = {};
    try {
      data = await response.json();
    } catch (error) {
      data = { ok: false, error: "unreadable", message: `HTTP ${response.status}` };
    }
    if (response.status === 401) signedOut(data.error === "session_ended");
    return { status: response.status, body: data };
  }

  async function loadSession() {
    const answer = await api("GET", "/api/session");
    if (answer.status !== 200) return false;
    session = answer.body;
    if (session.title) $("title").textContent = session.title;
    if (session.signed_in) {
      showSignedIn();
    } else {
      signedOut(Boolean(session.ended));
    }
    return session.signed_in;
  }

  function drawWho() {
    const who = $("who");
    who.hidden = !(session && session.signed_in);
    if (!session || !session.signed_in) return;
    $("who-name").textContent = session.name || session.staff_id;
    $("who-role").textContent = I18n.t(`floor.role.${session.role}`);
    document.body.dataset.role = session.role;
  }

  function showSignedIn() {
    document.body.dataset.session = "signed_in";
    $("sign-in").hidden = true;
    drawWho();
    onSignedIn();
  }

  /** The session is over (or never was): the sign-in, saying why when it ended. */
  function signedOut(ended) {
    document.body.dataset.session = "signed_out";
    if (session) session.signed_in = false;
    $("sign-in").hidden = false;
    $("who").hidden = true;
    const why = $("sign-in-why");
    why.hidden = !ended;
    why.textContent = ended ? I18n.t("floor.session.ended") : "";
    onSignedOut();
  }

  function setUpSignIn() {
    $("sign-in-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      const status = $("sign-in-status");
      status.textContent = I18n.t("floor.sign_in.checking");
      status.dataset.outcome = "busy";
      if (!session) await loadSession();
      const answer = await api("POST", "/api/sign-in", {
        staff_id: $("staff-id").value.trim(), pin: $("pin").value,
      });
      $("pin").value = "";
      if (answer.status === 200 && answer.body.signed_in) {
        session = answer.body;
        status.textContent = "";
        status.dataset.outcome = "ok";
        $("sign-in-why").hidden = true;
        showSignedIn();
        return;
      }
      status.dataset.outcome = "refused";
      const error = answer.body.error || "unreachable";
      status.dataset.error = error;
      if (error === "pin_locked") {
        status.textContent = I18n.t("floor.sign_in.locked", { seconds: answer.body.retry_s || 60 });
      } else if (error === "wrong_pin") {
        status.textContent = I18n.t("floor.sign_in.wrong");
      } else if (error === "csrf" || error === "session_ended") {
        await loadSession();
        status.textContent = I18n.t("floor.error.csrf");
      } else {
        status.textContent = say(`floor.error.${error}`, {}, answer.body.message || error);
      }
    });
    $("sign-out").addEventListener("click", async () => {
      const answer = await api("POST", "/api/sign-out", {});
      if (answer.status === 200) session = answer.body;
      signedOut(false);
    });
  }

  // --- the live stream -----------------------------------------------------------------------

  /**
   * Follows the floor's events (screen.js's `Screens.follow`) while signed in. `handlers` draws
   * each event by its name. A stream refused shows the sign-in when the session has ended, and
   * is tried again when it has not; one that drops or falls silent is reconnected.
   */
  function follow(handlers) {
    let stream = null;
    const reachable = (yes) => {
      $("link").title = yes ? I18n.t("floor.link.live") : I18n.t("floor.link.lost");
    };
    return {
      start() {
        if (!stream) stream = Screens.follow("/api/events", handlers, reachable, loadSession);
      },
      stop() { if (stream) stream.close(); stream = null; },
    };
  }

  // --- problems ------------------------------------------------------------------------------

  function drawProblems(found) {
    problems = { ...problems, ...found };
    const banner = $("problems");
    banner.replaceChildren();
    for (const part of ["broker", "database"]) {
      const detail = problems[part];
      if (!detail || detail === "connecting") continue;
      const line = make("p", `problem ${part}`, I18n.t(`floor.problem.${part}`, { detail }));
      line.dataset.part = part;
      banner.append(line);
    }
    banner.hidden = banner.childElementCount === 0;
    document.body.classList.toggle("stale", Boolean(problems.broker));
  }

  // --- a tile --------------------------------------------------------------------------------

  function limitsText(limits) {
    if (!limits || !limits.limits) return null;
    const main = limits.limits.banker || limits.limits.player || Object.values(limits.limits)[0];
    if (!main) return null;
    const currency = limits.currency || "USD";
    return `${I18n.money(Number(main.min), currency)} – ${I18n.money(Number(main.max), currency)}`;
  }

  function tileStatus(tile) {
    if (tile.online === true) return "online";
    if (tile.online === false) return "offline";
    return "no_news";
  }

  function drawTile(tile, link = true) {
    const node = make("article", "tile");
    node.dataset.table = tile.table_id;
    node.dataset.status = tileStatus(tile);
    node.dataset.phase = tile.phase || "";
    node.dataset.alarms = String(tile.open_alarm_count || 0);
    node.dataset.seq = String(tile.seq || 0);
    if (tile.ts) node.dataset.ts = tile.ts;
    if (tile.hold_reason) node.classList.add("held");
    if (tile.open_alarm_count) node.classList.add("alarmed");
    if (tile.dispute) node.classList.add("disputed");

    const head = make("header", "tile-head");
    const name = link ? make("a", "table-name", tile.table_id) : make("b", "table-name", tile.table_id);
    if (link) name.href = `/tables/${encodeURIComponent(tile.table_id)}${window.location.search}`;
    head.append(name);
    const status = make("span", `online ${tileStatus(tile)}`, I18n.t(`floor.tile.${tileStatus(tile)}`));
    head.append(status);
    if (tile.open_alarm_count) {
      const badge = make("span", "alarm-badge", I18n.t("floor.tile.alarms", { count: tile.open_alarm_count }));
      head.append(badge);
    }
    node.append(head);

    const phase = make("div", "phase");
    if (tile.phase) {
      phase.append(make("span", "phase-name", I18n.t(`display.phase.${tile.phase}`)));
    } else {
      phase.append(make("span", "phase-name quiet", I18n.t("floor.tile.no_state")));
    }
    if (tile.hold_reason) {
      phase.append(make("span", "hold", I18n.t("floor.tile.hold", {
        reason: say(`display.hold.${tile.hold_reason}`, {}, tile.hold_reason),
      })));
    }
    node.append(phase);
    if (tile.dispute) {
      node.append(make("div", "dispute", I18n.t("floor.tile.dispute", {
        dispute_id: tile.dispute.dispute_id || "", reason: tile.dispute.reason || "",
      })));
    }

    const facts = make("dl", "facts");
    const fact = (label, value, className) => {
      const row = make("div", className);
      row.append(make("dt", null, label), make("dd", null, value));
      facts.append(row);
    };
    // An offline table's reader is not known now: its last status named it before it went.
    const reader = tile.online === false || !tile.reader ? null : tile.reader;
    fact(I18n.t("floor.tile.reader"), reader ? say(`floor.reader.${reader}`, {}, reader) : "–", "reader");
    fact(I18n.t("game.shoe"), tile.shoe_id ? `${tile.shoe_id}${tile.round_no ? " · " + tile.round_no : ""}` : "–", "shoe");
    fact(I18n.t("game.cards_left"), tile.cards_left === null || tile.cards_left === undefined ? "–" : I18n.number(tile.cards_left), "cards-left");
    fact(I18n.t("floor.tile.dealer"), tile.dealer || I18n.t("floor.tile.no_dealer"), "dealer");
    fact(I18n.t("game.limits"), limitsText(tile.limits) || "–", "limits");
    fact(I18n.t("floor.tile.pace"), tile.rounds_per_hour === null || tile.rounds_per_hour === undefined
      ? "–" : I18n.t("floor.tile.rounds_per_hour", { value: tile.rounds_per_hour }), "pace");
    node.append(facts);

    const strip = make("ol", "strip");
    strip.setAttribute("aria-label", I18n.t("floor.tile.strip"));
    for (const bead of tile.strip || []) {
      const item = make("li", `bead ${bead.winner}`, I18n.t(`game.bead.${{ B: "banker", P: "player", T: "tie" }[bead.winner]}`));
      item.dataset.winner = bead.winner;
      if (bead.banker_pair) item.append(make("i", "pair bp"));
      if (bead.player_pair) item.append(make("i", "pair pp"));
      strip.append(item);
    }
    node.append(strip);
    return node;
  }

  // --- open alarms, and their acknowledgement ---------------------------------------------------

  function alarmCode(alarm) {
    return say(`display.alarm.${alarm.code}`, {}, alarm.code);
  }

  function drawAlarm(alarm, acknowledged) {
    const item = make("li", "open-alarm");
    item.dataset.table = alarm.table_id;
    item.dataset.alarm = alarm.alarm_id;
    const line = make("div", "alarm-line");
    line.append(
      make("time", "when", alarm.ts ? time(alarm.ts) : "–"),
      make("a", "alarm-table", alarm.table_id),
      make("b", "alarm-code", alarmCode(alarm)),
      make("span", "alarm-id", alarm.alarm_id),
    );
    line.querySelector(".alarm-table").href = `/tables/${encodeURIComponent(alarm.table_id)}${window.location.search}`;
    item.append(line);
    if (alarm.message) item.append(make("div", "alarm-message", alarm.message));
    if (session && session.role === "supervisor") {
      item.append(acknowledgeForm(alarm, acknowledged));
    }
    return item;
  }

  function acknowledgeForm(alarm, acknowledged) {
    const form = make("form", "acknowledge");
    const comment = make("input", "comment");
    comment.name = "comment";
    comment.maxLength = 500;
    comment.placeholder = I18n.t("floor.alarm.comment");
    comment.setAttribute("aria-label", I18n.t("floor.alarm.comment"));
    const button = make("button", "acknowledge-button", I18n.t("floor.alarm.acknowledge"));
    button.type = "submit";
    const status = make("span", "ack-status");
    status.setAttribute("role", "status");
    form.append(comment, button, status);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      button.disabled = true;
      status.dataset.outcome = "busy";
      status.textContent = I18n.t("floor.alarm.sending");
      const path = `/api/tables/${encodeURIComponent(alarm.table_id)}/alarms/`
        + `${encodeURIComponent(alarm.alarm_id)}/acknowledge`;
      const answer = await api("POST", path, { comment: comment.value });
      if (answer.body.ok) {
        status.dataset.outcome = "ok";
        status.textContent = I18n.t("floor.alarm.done");
        acknowledged(alarm);
        return;
      }
      button.disabled = false;
      const error = answer.body.error || "unreachable";
      status.dataset.outcome = "refused";
      status.dataset.error = error;
      const reason = I18n.has(`display.refusal.${error}`) ? I18n.t(`display.refusal.${error}`)
        : say(`floor.error.${error}`, {}, answer.body.message || error);
      status.textContent = I18n.t("floor.alarm.refused", { reason });
    });
    return form;
  }

  /** Draws `alarms` in `list`, keeping the forms of those still there (typing goes on). */
  function drawAlarms(list, alarms, acknowledged) {
    const kept = new Map([...list.children].map((node) => [node.dataset.table + " " + node.dataset.alarm, node]));
    const nodes = alarms.map((alarm) => {
      const key = alarm.table_id + " " + alarm.alarm_id;
      const old = kept.get(key);
      const busy = old && old.querySelector(".ack-status") && old.querySelector(".ack-status").dataset.outcome;
      const typing = old && old.querySelector(".comment") && old.querySelector(".comment").value;
      if (old && (busy || typing) && old.dataset.role === (session && session.role)) return old;
      const fresh = drawAlarm(alarm, acknowledged);
      fresh.dataset.role = session ? session.role : "";
      return fresh;
    });
    list.replaceChildren(...nodes);
  }

  /** Starts a page: texts, language, session, then `start()` once signed in. */
  async function boot(start, stop, redraw) {
    await I18n.load("floor");
    onSignedIn = start;
    onSignedOut = stop;
    languagePicker(redraw);
    setUpSignIn();
    if (!(await loadSession())) {
      // Try again now and then: a server restarting comes back by itself.
      const retry = setInterval(async () => {
        if (session) { clearInterval(retry); return; }
        await loadSession();
      }, 2000);
    }
  }

  return {
    $, make, say, time, api, follow, boot, drawProblems, drawTile, drawAlarms, alarmCode,
    get session() { return session; },
  };
})();
