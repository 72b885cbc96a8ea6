"""The user's browser on the library's secret page, played by the standard library's HTTP client
and a cookie jar: what `test_api_key_server.py` and `tests/fleet/test_fleet.py` share. It checks
the page's HTTP contract (its cookie, the CSRF token in the form, the `Origin` of a submission),
not what a browser makes of it: the real-browser tests are `tests/browser/`.
"""

from __future__ import annotations

import http.cookiejar
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from email.message import Message
from html.parser import HTMLParser

HTTP_TIMEOUT = 10


@dataclass
class Page:
    """One response to the browser: status, headers and the HTML (or other text) shown."""

    status: int
    headers: Message
    body: str


class FormReader(HTMLParser):
    """The `<form>` and `<input>` tags of a page, with their attributes, as the browser's HTML
    parser reads them."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[dict[str, str | None]] = []
        self.inputs: list[dict[str, str | None]] = []

    def handle_starttag(self, tag, attrs):
        if tag == "form":
            self.forms.append(dict(attrs))
        elif tag == "input":
            self.inputs.append(dict(attrs))


@dataclass
class Form:
    """The page's form as the browser was given it."""

    action: str
    csrf: str
    inputs: list[dict[str, str | None]]

    def filled(self, key: str) -> dict[str, str]:
        return {"_csrf": self.csrf, "key": key}


def read_form(page: Page) -> Form:
    """The form of a page that shows one: a POST to the page itself, a hidden `_csrf` token and a
    password input `key` that shows no value."""
    reader = FormReader()
    reader.feed(page.body)
    reader.close()
    assert len(reader.forms) == 1, f"expected one form: {page.body}"
    form = reader.forms[0]
    assert (form.get("method") or "").lower() == "post", form
    csrf = [i for i in reader.inputs if i.get("name") == "_csrf"]
    assert len(csrf) == 1 and csrf[0].get("type") == "hidden" and csrf[0].get("value"), reader.inputs
    key = [i for i in reader.inputs if i.get("name") == "key"]
    assert len(key) == 1 and key[0].get("type") == "password", f"the key is a password input: {reader.inputs}"
    assert not key[0].get("value"), f"a password input shows no value: {key[0]}"
    return Form(action=form.get("action") or "", csrf=csrf[0]["value"], inputs=reader.inputs)


def origin_of(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


class Browser:
    """The user's browser: urllib with a cookie jar, never through a proxy from the environment
    (the page is on loopback). A form submission carries the page's `Origin`, as every current
    browser's POST does, unless told otherwise. Every page it is shown is kept. `headers` go
    with every request (the fleet's test pins a replica with one)."""

    def __init__(self, headers: dict[str, str] | None = None) -> None:
        self.headers = dict(headers or {})
        self.cookies = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(
            urllib.request.ProxyHandler({}), urllib.request.HTTPCookieProcessor(self.cookies))
        self.shown: list[Page] = []
        self.submitted: dict[str, str] | None = None

    def request(self, method, url, *, form=None, headers=None) -> Page:
        data = None if form is None else urllib.parse.urlencode(form).encode()
        request = urllib.request.Request(url, data=data, method=method,
                                         headers={**self.headers, **(headers or {})})
        if data is not None:
            request.add_header("Content-Type", "application/x-www-form-urlencoded")
        try:
            with self.opener.open(request, timeout=HTTP_TIMEOUT) as response:
                page = Page(response.status, response.headers, response.read().decode())
        except urllib.error.HTTPError as refused:
            with refused:
                page = Page(refused.code, refused.headers, refused.read().decode())
        self.shown.append(page)
        return page

    def get(self, url) -> Page:
        return self.request("GET", url)

    def post(self, url, form, *, origin: str | None = "page", headers=None) -> Page:
        """POST `form` to `url`; `origin` "page" sends the page's own `Origin`, None sends none."""
        headers = dict(headers or {})
        if origin is not None:
            headers["Origin"] = origin_of(url) if origin == "page" else origin
        return self.request("POST", url, form=form, headers=headers)

    def open(self, url) -> Form:
        page = self.get(url)
        assert page.status == 200, f"GET {url}: {page.status} {page.body}"
        form = read_form(page)
        assert form.action == urllib.parse.urlsplit(url).path, f"the form posts to its own page: {form.action}"
        return form

    def finish(self, url, key) -> None:
        """What the user does: open the page, type the key, save."""
        form = self.open(url)
        page = self.post(url, form.filled(key))
        assert page.status == 200, f"POST {url}: {page.status} {page.body}"
        assert "Saved" in page.body, page.body
        self.submitted = form.filled(key)
