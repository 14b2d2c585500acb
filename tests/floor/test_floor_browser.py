# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The floor in headless Chromium, against real tables, a real broker, the ingest and a database.

What a pit supervisor does with the floor: signs in (a wrong PIN refused), sees every table's
tile and the floor's open alarms change live as the tables deal (the page never reloads),
acknowledges an alarm with a comment (the dealer's own screen then shows it closed), reads a
table's page from the database, switches language; and what a viewer, a forged request from
another site and a floor restart (a stale session) get.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from playwright.async_api import Browser, Page, expect

from tests.floor.harness import (
    SUPERVISOR,
    SUPERVISOR_PIN,
    VIEWER,
    VIEWER_PIN,
    FloorStack,
    deal_rounds,
    floor_process,
    floor_stack,
    new_shoe,
    raise_alarm,
    sign_in_dealer,
)
from tests.mosquitto import Mosquitto
from tests.support.browser_pages import watched_page
from tests.support.ports import free_port

pytestmark = [pytest.mark.broker, pytest.mark.browser]

#: How long a change at a table may take to show on the floor in these tests (the product's
#: figure is 2 s at p99, measured by bench/bench_floor_latency.py).
LIVE_S = 5_000


@contextlib.asynccontextmanager
async def floor_page(
    browser: Browser, url: str, *, errors_allowed: bool = False
) -> AsyncIterator[tuple[Page, list[str]]]:
    """A page of the floor; the errors it logs (script errors, refused policy, missing texts).

    None by the time it closes unless ``errors_allowed`` (tests/support/browser_pages.py).
    """
    async with watched_page(
        browser, url, viewport={"width": 1600, "height": 1000}, errors_allowed=errors_allowed
    ) as shown:
        yield shown


async def sign_in(page: Page, staff_id: str, pin: str) -> None:
    await expect(page.locator("body")).to_have_attribute("data-session", "signed_out")
    await page.fill("#staff-id", staff_id)
    await page.fill("#pin", pin)
    await page.click("#sign-in-button")
    await expect(page.locator("body")).to_have_attribute("data-session", "signed_in")
    await expect(page.locator("body")).to_have_attribute("data-ready", "yes")


async def tile(page: Page, table_id: str) -> dict[str, Any]:
    shown: dict[str, Any] = await page.evaluate(
        """(id) => {
          const node = document.querySelector(`.tile[data-table="${id}"]`);
          if (!node) return null;
          const text = (name) => node.querySelector(name)?.textContent ?? null;
          return {
            status: node.dataset.status, phase: node.dataset.phase,
            alarms: Number(node.dataset.alarms), seq: Number(node.dataset.seq),
            beads: [...node.querySelectorAll(".strip li")].map((li) => li.dataset.winner),
            dealer: text(".dealer dd"), limits: text(".limits dd"), shoe: text(".shoe dd"),
            cardsLeft: text(".cards-left dd"), alarmed: node.classList.contains("alarmed"),
          };
        }""",
        table_id,
    )
    return shown


async def open_alarm_ids(page: Page) -> list[str]:
    ids: list[str] = await page.evaluate(
        "() => [...document.querySelectorAll('#alarm-items li')].map((li) => li.dataset.alarm)"
    )
    return ids


async def until(page: Page, script: str, arg: object = None) -> None:
    await page.wait_for_function(script, arg=arg, timeout=LIVE_S)


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_a_supervisor_follows_the_floor_live_and_acknowledges_an_alarm(
    tmp_path: Path, broker: Mosquitto, database_url: str, browser: Browser
) -> None:
    display = f"127.0.0.1:{free_port()}"
    async with (
        floor_stack(
            tmp_path, broker, database_url, tables=("F1", "F2"), displays={"F1": display}
        ) as stack,
        floor_page(browser, f"{stack.url}/") as (page, errors),
        floor_page(browser, f"http://{display}/") as (dealer, dealer_errors),
    ):
        f1 = stack.backends["F1"]
        await sign_in_dealer(f1)
        await new_shoe(f1, "S-1")
        await deal_rounds(f1, 2)

        # A wrong PIN is refused in words; the right one shows the floor.
        await page.fill("#staff-id", SUPERVISOR)
        await page.fill("#pin", "0000")
        await page.click("#sign-in-button")
        status = page.locator("#sign-in-status")
        await expect(status).to_have_attribute("data-error", "wrong_pin")
        await expect(status).to_have_text("Wrong staff id or PIN.")
        await sign_in(page, SUPERVISOR, SUPERVISOR_PIN)
        assert await page.locator("section.area h2").all_text_contents() == ["Pit A", "Pit B"]
        shown = await tile(page, "F1")
        assert (shown["status"], shown["phase"], shown["dealer"], shown["shoe"]) == (
            "online",
            "between_rounds",
            "D-207",
            "S-1 · 2",
        )
        assert len(shown["beads"]) == 2
        assert shown["limits"] == "MOP\u00a0300 \u2013 MOP\u00a030,000"
        assert (await tile(page, "F9"))["status"] == "no_news"

        # Live: the page is never reloaded; what the table does shows by itself.
        await page.evaluate("() => { window.notReloaded = true; }")
        before = await tile(page, "F1")
        await deal_rounds(f1, 1, first=3)
        await until(
            page,
            "(n) => document.querySelectorAll('.tile[data-table=F1] .strip li').length === n",
            3,
        )
        alarm = await raise_alarm(f1, 4)
        await until(
            page,
            "(id) => [...document.querySelectorAll('#alarm-items li')]"
            ".some((li) => li.dataset.alarm === id)",
            alarm["alarm_id"],
        )
        after = await tile(page, "F1")
        assert after["alarmed"]
        assert after["alarms"] == 1
        assert after["cardsLeft"] != before["cardsLeft"]
        assert await page.evaluate("() => window.notReloaded === true")

        # The dealer's own screen shows the same alarm open.
        await expect(dealer.locator("#alarms-open")).to_be_visible()
        await expect(dealer.locator("#alarms li.open")).to_have_count(1)

        # The supervisor acknowledges it from the floor, with a comment.
        item = page.locator(f'#alarm-items li[data-alarm="{alarm["alarm_id"]}"]')
        await item.locator(".comment").fill("camera checked, round stands")
        await item.locator(".acknowledge-button").click()
        await expect(page.locator("#alarm-items li")).to_have_count(0, timeout=LIVE_S)
        event = await f1.until_event("alarm_acknowledged", alarm_id=alarm["alarm_id"])
        assert (event["supervisor"], event["comment"]) == (
            SUPERVISOR,
            "camera checked, round stands",
        )
        assert not (await tile(page, "F1"))["alarmed"]
        # ... and the dealer's screen shows it closed.
        await expect(dealer.locator("#alarms li.open")).to_have_count(0, timeout=LIVE_S)
        await expect(dealer.locator("#alarms-open")).to_be_hidden()

        await the_tables_page_shows_it(page, alarm["alarm_id"])
    assert not errors, errors
    assert not dealer_errors, dealer_errors


async def the_tables_page_shows_it(page: Page, alarm_id: str) -> None:
    """The table's page: rounds, the alarm with who acknowledged it, the dealer's stint."""
    await page.click('.tile[data-table="F1"] a.table-name')
    await expect(page.locator("body")).to_have_attribute("data-ready", "yes")
    await expect(page.locator("#rounds tbody tr")).to_have_count(4, timeout=LIVE_S)
    acknowledged = page.locator(f'#table-alarms li[data-alarm="{alarm_id}"]')
    await expect(acknowledged).to_have_class("acknowledged", timeout=10_000)
    await expect(acknowledged).to_contain_text(f"acknowledged by {SUPERVISOR}")
    await expect(acknowledged).to_contain_text("camera checked, round stands")
    await expect(page.locator("#stints tbody tr")).to_have_count(1)
    await expect(page.locator("#stints tbody tr td.dealer")).to_have_text("D-207")
    settled = page.locator('#rounds tr[data-round="S-1-1"] .settlement li[data-bet="banker"]')
    await expect(settled).to_have_count(1)

    # In Korean, without reloading.
    await page.click('#language button[data-lang="ko"]')
    await expect(page.locator("#rounds-title")).to_have_text("최근 판")
    await expect(page.locator("html")).to_have_attribute("lang", "ko")


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_a_viewer_reads_only_and_another_sites_page_cannot_act(
    tmp_path: Path, broker: Mosquitto, database_url: str, browser: Browser
) -> None:
    async with floor_stack(tmp_path, broker, database_url) as stack:
        f1 = stack.backends["F1"]
        await new_shoe(f1, "S-1")
        alarm = await raise_alarm(f1, 1)
        async with floor_page(browser, f"{stack.url}/") as (page, errors):
            await sign_in(page, VIEWER, VIEWER_PIN)
            await expect(page.locator("#who-role")).to_have_text("viewer (read only)")
            await until(page, "() => document.querySelectorAll('#alarm-items li').length === 1")
            assert await open_alarm_ids(page) == [alarm["alarm_id"]]
            assert await page.locator(".acknowledge-button").count() == 0
            # Even asked directly, the floor refuses a viewer's acknowledgement.
            refused = await page.evaluate(
                """async (id) => {
                  const answer = await Floor.api("POST",
                    `/api/tables/F1/alarms/${id}/acknowledge`, {});
                  return [answer.status, answer.body.error];
                }""",
                alarm["alarm_id"],
            )
            assert refused == [403, "not_authorised"]
            # A second page of the same browser shares the session; signing out on one ends
            # the other's stream too, which then asks for a sign-in by itself.
            second = await page.context.new_page()
            await second.goto(f"{stack.url}/")
            await expect(second.locator("body")).to_have_attribute("data-ready", "yes")
            await page.click("#sign-out")
            await expect(page.locator("body")).to_have_attribute("data-session", "signed_out")
            await expect(second.locator("body")).to_have_attribute(
                "data-session", "signed_out", timeout=15_000
            )
            await second.close()
            await sign_in(page, SUPERVISOR, SUPERVISOR_PIN)
            # A request without the page's token is refused (CSRF), and so is one from another
            # site's page, whose browser does not even send the session cookie (SameSite).
            forged = await page.evaluate(
                """async (id) => {
                  const response = await fetch(`/api/tables/F1/alarms/${id}/acknowledge`, {
                    method: "POST", headers: {"Content-Type": "application/json"}, body: "{}"});
                  return [response.status, (await response.json()).error];
                }""",
                alarm["alarm_id"],
            )
            assert forged == [403, "csrf"]
            async with (
                other_site(stack, alarm["alarm_id"]) as evil,
                floor_page(browser, evil, errors_allowed=True) as (attacker, _),
            ):
                await expect(attacker.locator("body")).to_have_attribute(
                    "data-done", "yes", timeout=LIVE_S
                )
            await asyncio.sleep(0.5)
            assert f1.messages("alarm_acknowledged") == []
            assert await open_alarm_ids(page) == [alarm["alarm_id"]]
            # Acknowledged elsewhere (the dealer's display's panel, the pit's system): the floor
            # shows it closed by itself.
            done = await f1.command(
                "acknowledge_alarm", operator=SUPERVISOR, alarm_id=alarm["alarm_id"]
            )
            assert done["ok"], done
            await expect(page.locator("#alarm-items li")).to_have_count(0, timeout=LIVE_S)
            await expect(page.locator('.tile[data-table="F1"]')).to_have_attribute(
                "data-alarms", "0"
            )
        assert not errors, errors
    log = (tmp_path / "floor.log").read_text(encoding="utf-8")
    assert "floor acknowledgement refused: not a supervisor" in log
    assert "CSRF token missing or wrong" in log


@contextlib.asynccontextmanager
async def other_site(stack: FloorStack, alarm_id: str) -> AsyncIterator[str]:
    """Another site's page, posting to the floor's acknowledgement as a forger would.

    The page is on ``127.0.0.1``, the floor on ``localhost``: another site to the browser.
    """
    target = f"{stack.url}/api/tables/F1/alarms/{alarm_id}/acknowledge"
    script = f"""
      fetch("{target}", {{method: "POST", mode: "no-cors", credentials: "include",
        headers: {{"Content-Type": "text/plain"}}, body: '{{"comment": "forged"}}'}})
        .finally(() => {{ document.body.dataset.done = "yes"; }});
    """
    page = "<!doctype html><html><body><script src='/evil.js'></script></body></html>"

    async def index(request: web.Request) -> web.Response:
        del request
        return web.Response(text=page, content_type="text/html")

    async def code(request: web.Request) -> web.Response:
        del request
        return web.Response(text=script, content_type="text/javascript")

    app = web.Application()
    app.router.add_get("/", index)
    app.router.add_get("/evil.js", code)
    runner = web.AppRunner(app)
    await runner.setup()
    port = free_port()
    site = web.TCPSite(runner, "127.0.0.1", port)
    await site.start()
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        await runner.cleanup()


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)  # SQLite: the others
async def test_a_stale_session_and_an_unknown_table_are_said_and_recovered_from(
    tmp_path: Path, broker: Mosquitto, database_url: str, browser: Browser
) -> None:
    async with floor_stack(tmp_path, broker, database_url) as stack:
        f1 = stack.backends["F1"]
        await new_shoe(f1, "S-1")
        await deal_rounds(f1, 1)
        async with floor_page(browser, f"{stack.url}/tables/NOPE") as (page, errors):
            await page.fill("#staff-id", VIEWER)
            await page.fill("#pin", VIEWER_PIN)
            await page.click("#sign-in-button")
            await expect(page.locator("body")).to_have_attribute("data-ready", "unknown_table")
            await expect(page.locator("#not-found")).to_have_text(
                "There is no table NOPE on this floor."
            )
            await page.goto(f"{stack.url}/tables/F1")
            await expect(page.locator("body")).to_have_attribute("data-ready", "yes")
            await expect(page.locator("#rounds tbody tr")).to_have_count(1)
            # The floor restarts: the session is gone; the page says so and asks again.
            assert stack.floor is not None
            stack.floor.terminate()
            await stack.floor.wait()
            async with floor_process(stack, broker, database_url):
                await expect(page.locator("#sign-in-why")).to_be_visible(timeout=15_000)
                await expect(page.locator("#sign-in-why")).to_have_text(
                    "Your session has ended. Sign in again."
                )
                await sign_in(page, VIEWER, VIEWER_PIN)
                await expect(page.locator("#rounds tbody tr")).to_have_count(1)
        assert not errors, errors
    log = (tmp_path / "floor.log").read_text(encoding="utf-8")
    assert "floor: unknown table asked for" in log
    assert "floor: a request of an ended session" in log
