// Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
// The screens' texts: every word a page shows comes from the catalogue the server sends
// (GET /i18n/<screen>.json, screens/languages.py). A view names texts as
// {key, args}; data-i18n* attributes name the page's fixed texts. Loaded before the page's script.
"use strict";

const I18n = (() => {
  let messages = {};
  let lang = "en";
  const numbers = new Map();

  /** The page's texts in the language of `?lang=`, else the screen's configured one. */
  async function load(screen) {
    const asked = new URLSearchParams(window.location.search).get("lang");
    const query = asked ? `?lang=${encodeURIComponent(asked)}` : "";
    const response = await fetch(`/i18n/${screen}.json${query}`, { cache: "no-cache" });
    if (!response.ok) throw new Error(`texts of ${screen}: HTTP ${response.status}`);
    const body = await response.json();
    messages = body.messages;
    lang = body.lang;
    numbers.clear();
    document.documentElement.lang = lang;
    apply(document);
    return lang;
  }

  /** A number as the page's language writes it. */
  function number(value, options = {}) {
    const id = JSON.stringify(options);
    if (!numbers.has(id)) numbers.set(id, new Intl.NumberFormat(lang, options));
    return numbers.get(id).format(value);
  }

  /** An amount of money in `currency` (ISO 4217), as the page's language writes it. */
  function money(value, currency) {
    const cents = Number.isInteger(value) ? 0 : 2;
    return number(value, {
      style: "currency", currency, minimumFractionDigits: cents, maximumFractionDigits: cents,
    });
  }

  function fill(text, args) {
    return text.replace(/\{(\w+)\}/g, (whole, name) => {
      if (!(name in args)) return whole;
      const value = args[name];
      return typeof value === "number" ? number(value) : String(value);
    });
  }

  /** The text of `key` with its {placeholders} filled; an unknown key shows itself. */
  function t(key, args = {}) {
    return lookup(key, args);
  }

  /** Whether the catalogue has a text for `key`. */
  function has(key) {
    return Object.prototype.hasOwnProperty.call(messages, key);
  }

  /** A view's text ({key, args}) in the page's language; "" for none. */
  function text(value) {
    if (value === null || value === undefined) return "";
    if (typeof value === "object" && typeof value.key === "string") {
      const args = {};
      for (const [name, arg] of Object.entries(value.args || {})) {
        args[name] = arg !== null && typeof arg === "object" ? text(arg) : arg;
      }
      return lookup(value.key, args);
    }
    return String(value);
  }

  function lookup(key, args) {
    const found = messages[key];
    if (found === undefined) {
      console.error(`no text for ${key}`);
      return key;
    }
    return fill(found, args);
  }

  const ATTRIBUTES = [
    ["data-i18n-title", "title"],
    ["data-i18n-aria-label", "aria-label"],
    ["data-i18n-placeholder", "placeholder"],
  ];

  /** Fills every element under `root` that names its text with data-i18n*. */
  function apply(root) {
    for (const element of root.querySelectorAll("[data-i18n]")) {
      element.textContent = lookup(element.dataset.i18n, {});
    }
    for (const [source, target] of ATTRIBUTES) {
      for (const element of root.querySelectorAll(`[${source}]`)) {
        element.setAttribute(target, lookup(element.getAttribute(source), {}));
      }
    }
  }

  return { load, t, has, text, apply, number, money, get lang() { return lang; } };
})();
