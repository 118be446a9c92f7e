"""A table's phone, as the page's script uses it: open the table's link, read the form's entry id
and slot, send a result (JSON answers), take it back."""

from __future__ import annotations

import re
from dataclasses import dataclass
from html import unescape
from typing import Any

from app.club import RoundResult

LINK = re.compile(r"/club/nights/(\d+)/table/(\w+)/([\w-]+)")


def table_links(client: Any, night_id: int) -> dict[str, str]:
    """Each table's phone link as the elders' night page shows it."""
    page = client.get(f"/club/nights/{night_id}").text
    links = {m.group(2): m.group(0) for m in LINK.finditer(page) if int(m.group(1)) == night_id}
    assert set(links) == {"vinder", "mellan", "taber", "finale", "mellanfinale", "taberfinale"}, links
    return links


@dataclass
class Phone:
    client: Any
    link: str

    def page(self) -> str:
        response = self.client.get(self.link)
        assert response.status_code == 200, response.text
        return response.text

    def form(self) -> dict[str, str]:
        """The result form's hidden fields (entry, phase, round); empty when there is no form."""
        html = self.page()
        if "data-result-form" not in html:
            return {}
        return {name: unescape(value) for name, value in
                re.findall(r'<input type="hidden" name="(entry|phase|round)" value="([^"]*)"', html)}

    def send(self, result: RoundResult, *, fields: dict[str, str] | None = None, chairs: list[str] | None = None,
             ) -> tuple[int, dict[str, Any]]:
        """Send `result` through the form the page shows now (or with `fields` kept from earlier)."""
        fields = fields or self.form()
        assert fields, "the phone shows no result form"
        data = {**fields, "first_out": result.first_out, "second_out": result.second_out}
        if result.bar_rov:
            data["bar_rov"] = "yes"
        for i, name in enumerate(chairs or []):
            if result.agurk(name):
                data[f"agurk_{i}"] = str(result.agurk(name))
        response = self.client.post(self.link + "/results", data=data, headers={"Accept": "application/json"})
        return response.status_code, response.json()

    def take_back(self) -> tuple[int, dict[str, Any]]:
        found = re.search(r'action="[^"]*/undo"[^>]*>\s*<input type="hidden" name="entry" value="([^"]+)"', self.page())
        assert found, "the phone offers nothing to take back"
        response = self.client.post(self.link + "/undo", data={"entry": found.group(1)},
                                    headers={"Accept": "application/json"})
        return response.status_code, response.json()
