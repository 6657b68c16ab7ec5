"""The inspector's login in a real Chromium (issue 28 item 7): the token is typed into a form,
or carried by a ``#token=`` fragment the page reads and drops; it never appears in a URL the
server, the browser's history or a proxy sees."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ui.conftest import Watched, needs_ui_extra, serving

TOKEN = "ui-login-t0k3n-Wq8rZ-0123456789"


def test_the_form_and_the_fragment_log_in_without_a_token_in_any_url(
        ledger: Path, tmp_path: Path, browser: Any) -> None:
    needs_ui_extra()
    (tmp_path / "token").write_text(TOKEN)
    with serving("--ledger", str(ledger), "--session", "demo", "--token-file",
                 str(tmp_path / "token")) as url:
        for how in ("form", "fragment"):
            context = browser.new_context()
            try:
                page = Watched(context.new_page())
                p = page.page
                asked: list[str] = []
                p.on("request", lambda r, seen=asked: seen.append(r.url))
                if how == "form":
                    p.goto(url + "/")  # no cookie: to the form
                    assert p.url == url + "/login"
                    p.fill("#token", TOKEN)
                    p.click("button[type=submit]")
                else:
                    p.goto(f"{url}/login#token={TOKEN}")
                p.wait_for_selector("table#beliefs tbody tr")
                assert p.url.rstrip("/").startswith(url) and TOKEN not in p.url
                assert all(TOKEN not in u for u in asked), asked
                assert TOKEN not in p.evaluate("document.location.href + history.length")
                assert page.errors == []
            finally:
                context.close()
