"""The translations are complete: every catalog (locale/<lang>/LC_MESSAGES/{django,djangojs}.po) translates every
string, none fuzzy, each with the placeholders of its msgid, and `makemessages` run over the code finds no string
the catalogs lack. docs/glossary.md holds the words; README.md says how to add a string."""

import re
import shutil
import subprocess
from pathlib import Path

import polib
import pytest
from django.conf import settings

ROOT = Path(__file__).resolve().parent.parent
LANGS = [code for code, _name in settings.LANGUAGES if code != settings.LANGUAGE_CODE]
DOMAINS = ("django", "djangojs")
# %(name)s, %s, %d and friends; "%%" is a literal percent sign, not a placeholder.
PLACEHOLDER = re.compile(r"%(?:\([^)]+\))?[-#0 +]*\d*(?:\.\d+)?[sdifr]")


def locale_dir(code: str) -> str:
    language, _sep, script = code.partition("-")
    return f"{language}_{script.title()}" if script else language  # zh-hans -> zh_Hans, as Django's to_locale


def catalog(code: str, domain: str, root: Path = ROOT) -> polib.POFile:
    return polib.pofile(str(root / "locale" / locale_dir(code) / "LC_MESSAGES" / f"{domain}.po"))


def gaps(po: polib.POFile) -> list[str]:
    found = [f"untranslated: {e.msgid[:70]!r}" for e in po.untranslated_entries()]
    found += [f"fuzzy: {e.msgid[:70]!r}" for e in po.fuzzy_entries() if not e.obsolete]
    return found


def placeholders(text: str) -> list[str]:
    return sorted(PLACEHOLDER.findall(text.replace("%%", "")))


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("code", LANGS)
def test_every_string_is_translated_and_none_is_fuzzy(code, domain):
    po = catalog(code, domain)
    assert "fuzzy" not in (po.metadata_is_fuzzy or [])
    problems = gaps(po)
    assert not problems, f"{len(problems)} in {code}/{domain}: {problems[:15]}"


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("code", LANGS)
def test_every_translation_keeps_the_placeholders_of_its_msgid(code, domain):
    wrong = []
    for e in catalog(code, domain).translated_entries():
        if e.msgid_plural:
            for n, text in e.msgstr_plural.items():
                # A language with one plural form (Chinese) uses the plural msgid's placeholders.
                source = e.msgid if int(n) == 0 and len(e.msgstr_plural) > 1 else e.msgid_plural
                if placeholders(text) != placeholders(source) and placeholders(text) != placeholders(e.msgid):
                    wrong.append((e.msgid, n, text))
        elif placeholders(e.msgstr) != placeholders(e.msgid):
            wrong.append((e.msgid, e.msgstr))
    assert not wrong, wrong[:10]


@pytest.mark.parametrize("code", LANGS)
def test_msgfmt_checks_every_catalog(code):
    for domain in DOMAINS:
        path = ROOT / "locale" / locale_dir(code) / "LC_MESSAGES" / f"{domain}.po"
        done = subprocess.run(["msgfmt", "--check", "-o", "/dev/null", str(path)], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr


def test_makemessages_finds_no_string_the_catalogs_lack(tmp_path):
    """Extract the strings again from a copy of the code (the catalogs in the checkout are not touched): a string
    added or changed in the code and not yet translated shows as untranslated or fuzzy there."""
    copy = tmp_path / "site"
    skip = shutil.ignore_patterns(".venv", ".git", ".bench", "staticfiles", "test-artifacts", "node_modules",
                                  "__pycache__", "*.mo", "*.sqlite3", ".pytest_cache", ".ruff_cache", ".hypothesis")
    shutil.copytree(ROOT, copy, ignore=skip)
    (copy / ".venv").symlink_to(ROOT / ".venv")
    done = subprocess.run(["make", "-s", "-o", ".venv/.installed", "messages"], cwd=copy, capture_output=True, text=True)  # as a developer would
    assert done.returncode == 0, done.stderr
    problems = {f"{code}/{domain}": gaps(catalog(code, domain, copy))[:10]
                for code in LANGS for domain in DOMAINS}
    assert not any(problems.values()), problems
