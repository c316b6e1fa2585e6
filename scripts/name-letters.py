#!/usr/bin/env python3
"""Builds the letter-triple table the reader weighs uncertain name characters with.

Writes crates/engine/model/name-letters.txt: how often each letter follows two others
(at a name's start and end, `<` stands for the word's edge) in personal names written
as an MRZ writes them (A-Z, national characters transliterated as ICAO 9303 Part 3
section 6 does).

The names come from two public sources, fetched from PyPI into a throwaway virtual
environment at pinned versions:
  - Faker 40.63.0 (MIT): first and last names of its locales; Latin-script locales
    as written, Cyrillic and Greek locales transliterated, Chinese and Japanese from
    their romanised lists; other scripts, and locales with fewer than 100 names an
    MRZ can write, are left out.
  - names 0.3.0 (MIT): the US Census 1990 lists of surnames and first names.
Every locale (and the census) counts as one source of equal weight, each distinct name
once, so that no one country's naming dominates the table. The output is the same on
every run.

Usage: scripts/name-letters.py            (needs python3 with venv and pip; network to PyPI)
"""

import collections
import importlib
import os
import pathlib
import subprocess
import sys
import tempfile
import unicodedata

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "crates/engine/model/name-letters.txt"
SCALE = 1_000_000
# A locale with fewer names (some hold a handful, or only a placeholder) is left out.
MIN_NAMES = 100

# ICAO 9303 Part 3, 6.A (Latin characters that are not simply an accented letter).
LATIN = {"Ä": "AE", "Ö": "OE", "Ü": "UE", "Å": "AA", "Æ": "AE", "Ø": "OE", "ß": "SS",
         "Þ": "TH", "Ð": "D", "Œ": "OE", "Ĳ": "IJ", "Ł": "L", "Đ": "D", "Ħ": "H", "ı": "I"}
# ICAO 9303 Part 3, 6.B (Cyrillic) and 6.C (Greek); language-specific rows follow.
CYRILLIC = dict(zip("АБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯ",
                    ["A", "B", "V", "G", "D", "E", "E", "ZH", "Z", "I", "I", "K", "L", "M", "N",
                     "O", "P", "R", "S", "T", "U", "F", "KH", "TS", "CH", "SH", "SHCH", "IE", "Y",
                     "", "E", "IU", "IA"]))
CYRILLIC_BY_LANGUAGE = {
    "uk": {"Г": "H", "Ґ": "G", "Є": "IE", "І": "I", "Ї": "I", "И": "Y"},
    "bg": {"Щ": "SHT", "Ъ": "A"},
    "mk": {"Ѓ": "GJ", "Ѕ": "DZ", "Ј": "J", "Љ": "LJ", "Њ": "NJ", "Ќ": "KJ", "Џ": "DZ"},
    "ru": {},
}
GREEK = dict(zip("ΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩ",
                 ["A", "V", "G", "D", "E", "Z", "I", "TH", "I", "K", "L", "M", "N", "X", "O",
                  "P", "R", "S", "T", "Y", "F", "CH", "PS", "O"]))
CYRILLIC_LOCALES = {"ru_RU": "ru", "uk_UA": "uk", "bg_BG": "bg", "mk_MK": "mk"}
ROMANISED = {"zh_CN", "zh_TW", "ja_JP"}
NAME_ATTRIBUTES = ("first_names", "first_names_female", "first_names_male", "last_names",
                   "last_names_female", "last_names_male", "unisex_last_names", "male_last_names",
                   "middle_names", "last_names_without_suffix")
ROMANISED_ATTRIBUTES = ("first_romanized_names", "last_romanized_names")


def strip_accents(letter):
    return "".join(c for c in unicodedata.normalize("NFKD", letter)
                   if not unicodedata.combining(c))


def mrz_words(name, table):
    """The name's words as an MRZ prints them, or None where a letter has no rendering."""
    out = []
    for char in name.upper():
        if char in table:
            out.append(table[char])
        elif strip_accents(char) in table:
            out.append(table[strip_accents(char)])
        elif char in LATIN:
            out.append(LATIN[char])
        elif "A" <= strip_accents(char) <= "Z" and len(strip_accents(char)) == 1:
            out.append(strip_accents(char))
        elif char in " -":
            out.append("<")
        elif char in "'’.":
            continue
        else:
            return None
    words = tuple(w for w in "".join(out).split("<") if w)
    return words or None


def locale_names(provider, attributes):
    names = set()
    for attribute in attributes:
        values = getattr(provider, attribute, None)
        if isinstance(values, (tuple, list, dict)):
            names.update(v for v in values if isinstance(v, str))
    return names


def sources(site):
    sys.path.insert(0, site)
    faker = importlib.import_module("faker")
    base = pathlib.Path(faker.__file__).parent / "providers" / "person"
    for locale in sorted(p.name for p in base.iterdir() if p.is_dir() and not p.name.startswith("_")):
        provider = importlib.import_module(f"faker.providers.person.{locale}").Provider
        if locale in ROMANISED:
            yield locale, locale_names(provider, ROMANISED_ATTRIBUTES), {}
        elif locale in CYRILLIC_LOCALES:
            table = dict(CYRILLIC, **CYRILLIC_BY_LANGUAGE[CYRILLIC_LOCALES[locale]])
            yield locale, locale_names(provider, NAME_ATTRIBUTES), table
        else:
            yield locale, locale_names(provider, NAME_ATTRIBUTES), GREEK
    census = pathlib.Path(importlib.import_module("names").__file__).parent
    census_names = set()
    for name in ("dist.all.last", "dist.female.first", "dist.male.first"):
        census_names.update(line.split()[0] for line in (census / name).read_text().splitlines())
    yield "us-census-1990", census_names, {}


def main():
    with tempfile.TemporaryDirectory() as scratch:
        subprocess.run([sys.executable, "-m", "venv", scratch], check=True)
        pip = os.path.join(scratch, "bin", "pip")
        subprocess.run([pip, "install", "-q", "faker==40.63.0", "names==0.3.0"], check=True)
        site = subprocess.run(
            [os.path.join(scratch, "bin", "python"), "-c",
             "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True, capture_output=True, text=True).stdout.strip()
        total = collections.Counter()
        used = []
        for label, names, table in sources(site):
            rendered = {words for words in (mrz_words(name, table) for name in names) if words}
            if len(rendered) < MIN_NAMES:
                continue
            counts = collections.Counter()
            for words in sorted(rendered):
                for word in words:
                    padded = "<<" + word + "<<"
                    counts.update(zip(padded, padded[1:], padded[2:]))
            n = sum(counts.values())
            used.append(label)
            for triple, count in counts.items():
                total[triple] += count / n
    n_sources = len(used)
    lines = [
        "# Letter triples in personal names as an MRZ writes them; built by scripts/name-letters.py.",
        f"# {n_sources} sources of equal weight: {', '.join(used)}.",
        "# Each line: three symbols ('<' is a word's edge) and the triple's share of all",
        f"# triples, times {SCALE}; triples under 1 are left out.",
    ]
    for triple in sorted(total):
        share = round(total[triple] / n_sources * SCALE)
        if share > 0:
            lines.append(f"{''.join(triple)} {share}")
    OUT.write_text("\n".join(lines) + "\n")
    print(f"wrote {OUT.relative_to(ROOT)} from {n_sources} sources")


if __name__ == "__main__":
    main()
