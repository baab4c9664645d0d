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
    # The files a developer has (tracked, and new ones git does not ignore): not the test databases and journals that
    # another pytest process beside this one creates and deletes while the copy runs.
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():  # a tracked file deleted in the work tree is not copied
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / name)
    (copy / ".venv").symlink_to(ROOT / ".venv")
    done = subprocess.run(["make", "-s", "-o", ".venv/.installed", "messages"], cwd=copy, capture_output=True, text=True)  # as a developer would
    assert done.returncode == 0, done.stderr
    problems = {f"{code}/{domain}": gaps(catalog(code, domain, copy))[:10]
                for code in LANGS for domain in DOMAINS}
    assert not any(problems.values()), problems


# --- The words: native phrasing held by checks, each check tried on forged entries too ------------------------------

def entries(code: str):
    """(domain, entry) for every live entry of `code`'s two catalogs."""
    for domain in DOMAINS:
        for e in catalog(code, domain):
            if not e.obsolete:
                yield domain, e


def texts(e: polib.POEntry) -> list[str]:
    return [e.msgstr] if not e.msgid_plural else list(e.msgstr_plural.values())


# Chinese sentences take full-width punctuation (，。：；？！（）). What may keep ASCII punctuation inside one: the
# placeholders, HTML tags, URLs, code in backticks, an HTTP header as it is typed, numbers (10½, 1.5, 12,345) and a
# list of numbers as the player types it (10,50,100). "..." is not allowed: Chinese writes … or ……
CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")
ASCII_PUNCTUATION = re.compile(r"[,.:;?!()]")
PUNCTUATION_ALLOWED = re.compile(
    r"%\([^)]+\)[-#0 +]*\d*(?:\.\d+)?[sdifr]|%[sdif]|<[^>]*>|https?://\S+|`[^`]*`|Authorization: Bearer"
    r"|\d+(?:[.,:]\d+)+|[A-Za-z0-9_]\.[A-Za-z0-9_]")


def chinese_punctuation_faults(text: str) -> list[str]:
    """The ASCII punctuation marks of a Chinese sentence: a text with Chinese characters in it, or a frame of
    placeholders and punctuation only ("%(name)s: %(card)s"), which is read as Chinese around what fills it."""
    rest = PUNCTUATION_ALLOWED.sub("\x00", text)
    if not CJK.search(text) and re.search(r"[A-Za-z]", rest):
        return []  # no Chinese in it: a name, a code, a Latin term
    return [f"{rest[max(0, m.start() - 8):m.end() + 8]!r}" for m in ASCII_PUNCTUATION.finditer(rest)]


@pytest.mark.parametrize("text", [
    "你好,世界。", "轮到你.", "牌：A, 2, 3。", "%(name)s: %(card)s", "%(a)s, %(b)s", "（注意)", "(注意）", "确定吗?",
    "好!", "第一;第二", "等一下...", "%(name)s 停牌.",
])
def test_the_chinese_punctuation_check_refuses_ascii_marks_in_a_chinese_sentence(text):
    assert chinese_punctuation_faults(text)


@pytest.mark.parametrize("text", [
    "%(name)s 停牌。", "点数比庄家更接近 10½ 且不超过。", "服务器种子的 SHA-256。", "见 https://example.com/a.b?x=1。",
    "如 10,50,100。", "运行 `make run`。", "请发送令牌（Authorization: Bearer …）或登录。", "%(class)s（%(total)s）",
    "Ban-Luck", "Fisher-Yates 洗牌", "%(count)s 张，共 1.5 点", "等一下……", "%(a)s + %(b)s = %(total)s",
])
def test_the_chinese_punctuation_check_lets_through_what_is_not_a_sentence_mark(text):
    assert not chinese_punctuation_faults(text)


@pytest.mark.parametrize("domain", DOMAINS)
def test_chinese_sentences_use_full_width_punctuation(domain):
    wrong = [(e.msgid[:60], t[:80], faults) for e in catalog("zh-hans", domain) if not e.obsolete
             for t in texts(e) if (faults := chinese_punctuation_faults(t))]
    assert not wrong, wrong[:10]


# Italian: the fair deal's seed is "codice casuale"; "seme" is a card's suit at an Italian table.
SEED = re.compile(r"(?i)\bseeds?\b")
SEME = re.compile(r"(?i)\bsem[ei]\b")


def italian_seed_faults(e: polib.POEntry) -> list[str]:
    if not SEED.search(f"{e.msgid} {e.msgid_plural or ''}"):
        return []  # "seme" for a suit is right
    return [t for t in texts(e) if SEME.search(t)]


def test_the_italian_seed_check_refuses_seme_for_a_seed_and_keeps_it_for_a_suit():
    assert italian_seed_faults(polib.POEntry(msgid="Your seed", msgstr="Il tuo seme"))
    assert italian_seed_faults(polib.POEntry(msgid="Seeds", msgstr="Semi"))
    assert italian_seed_faults(polib.POEntry(msgid="%(n)s seed", msgid_plural="%(n)s seeds",
                                             msgstr_plural={0: "%(n)s codice casuale", 1: "%(n)s semi"}))
    assert italian_seed_faults(polib.POEntry(msgid="The seed is revealed.", msgstr="Il SEME è svelato."))
    assert not italian_seed_faults(polib.POEntry(msgid="Your seed", msgstr="Il tuo codice casuale"))
    assert not italian_seed_faults(polib.POEntry(msgid="suit", msgstr="seme"))
    assert not italian_seed_faults(polib.POEntry(msgid="Seed the jackpot", msgstr="Alimenta il piatto"))
    assert not italian_seed_faults(polib.POEntry(msgid="A new seed", msgstr="Un nuovo codice, semplice"))


def test_italian_never_calls_the_seed_seme():
    wrong = [(e.msgid[:60], faults) for _d, e in entries("it") if (faults := italian_seed_faults(e))]
    assert not wrong, wrong
    seed = {e.msgid: e.msgstr for _d, e in entries("it") if e.msgid in ("seed", "Seed", "Seeds", "Server seed")}
    assert seed == {"seed": "codice casuale", "Seed": "Codice casuale", "Seeds": "Codici casuali",
                    "Server seed": "Codice casuale del server"}


# No English left: a translation that is its msgid (words the language uses as they are excepted), or that has
# English words in it.
SAME_IN_LANGUAGE = {
    "it": {"bot", "endpoint", "chat", "Chat", "club", "token", "Ban-Luck", "Ban-Ban", "Lobby", "Link:", "Replay",
           "Menu", "Home", "HalfPoint", "matta = %(value)s"},  # la matta: the English table borrows the Italian word
    "es": {"bot", "Bots", "endpoint", "chat", "Chat", "club", "token", "Ban-Luck", "Ban-Ban", "Lobby", "Total", "Jade",
           "HalfPoint"},
    "zh-hans": {"HalfPoint"},
}
NOT_WORDS = re.compile(r"%(?:\([^)]+\))?[-#0 +]*\d*(?:\.\d+)?[sdifr]|<[^>]*>|https?://\S+|`[^`]*`")
ENGLISH = re.compile(r"\b(the|and|you|your|with|this|that|from|please|is|are|will|can|must|not|"
                     r"hand|bank|seed|stand|beans)\b", re.IGNORECASE)


def english_faults(code: str, e: polib.POEntry) -> list[str]:
    found = []
    for t in texts(e):
        words = NOT_WORDS.sub(" ", t)
        if t in (e.msgid, e.msgid_plural) and re.search(r"[A-Za-z]{3,}", words) and t not in SAME_IN_LANGUAGE[code]:
            found.append(f"left as in English: {t[:60]!r}")
        elif m := ENGLISH.search(words):
            found.append(f"English {m[0]!r} in {t[:60]!r}")
    return found


@pytest.mark.parametrize("code", LANGS)
def test_the_english_check_refuses_an_untranslated_or_half_english_string(code):
    assert english_faults(code, polib.POEntry(msgid="Open the bank", msgstr="Open the bank"))
    assert english_faults(code, polib.POEntry(msgid="%(name)s stands.", msgstr="%(name)s stands."))
    assert english_faults(code, polib.POEntry(msgid="Your seed", msgstr="Your seed 种子"))
    assert english_faults(code, polib.POEntry(msgid="%(n)s hand", msgid_plural="%(n)s hands",
                                              msgstr_plural={0: "%(n)s mano", 1: "%(n)s hands"}))
    assert english_faults(code, polib.POEntry(msgid="Wrong password.", msgstr="Password is wrong"))
    assert not english_faults(code, polib.POEntry(msgid="Ban-Ban", msgstr="双A（Ban-Ban）"))
    assert not english_faults(code, polib.POEntry(msgid="%(name)s", msgstr="%(name)s"))
    assert not english_faults(code, polib.POEntry(msgid="×", msgstr="×"))
    assert not english_faults(code, polib.POEntry(msgid="See <a href=\"/the/hand\">it</a>", msgstr="见<a href=\"/the/hand\">此处</a>"))


@pytest.mark.parametrize("code", LANGS)
def test_no_english_is_left_in_a_catalog(code):
    wrong = [(d, e.msgid[:50], faults) for d, e in entries(code) if (faults := english_faults(code, e))]
    assert not wrong, wrong[:10]


# Spanish speaks to the player with tú. Usted shows in these words: the pronoun, "su cuenta" and friends where tu is
# meant, and the usted imperatives and questions.
USTED = re.compile(
    r"\b(usted(es)?|su (cuenta|contraseña|correo|dirección|usuario|nombre de usuario)|introduzca|escriba|elija|pulse|"
    r"haga clic|inicie|compruebe|vuelva a|inténtelo|espere|seleccione|confirme|añada|utilice|envíe|póngase|ingrese|"
    r"verifique|revise|desea|ha olvidado|ha indicado|ha iniciado|ha cerrado sesión|le hemos|contáctenos)\b|¿(tiene|ha|está|"
    r"desea|quiere)\b", re.IGNORECASE)


def test_the_usted_check_refuses_usted_and_lets_tu_and_the_third_person_through():
    for bad in ("¿Ha olvidado su contraseña?", "Introduzca su correo.", "Usted juega.", "Por favor, inicie sesión.",
                "¿Seguro que desea cerrar sesión?", "El usuario que ha indicado no existe.", "Acceda a su cuenta.",
                "Inténtelo más tarde.", "Le hemos enviado un correo.", "¿Tiene una cuenta?"):
        assert USTED.search(bad), bad
    for good in ("¿Has olvidado tu contraseña?", "Escribe tu correo.", "Puede suspender jugadores",
                 "La banca elige la banca inicial, o todas sus fichas son la banca.", "Vuelve a intentarlo más tarde.",
                 "%(name)s se planta.", "Elige un jugador que juegue esta mano."):
        assert not USTED.search(good), good


def test_spanish_says_tu():
    wrong = [(e.msgid[:50], t[:80]) for _d, e in entries("es") for t in texts(e) if USTED.search(t)]
    assert not wrong, wrong


# One English word, two meanings: each use says which with a context (pgettext, {% translate "x" context "y" %}),
# so that a language can word them apart (a hand's 点数 and a column's 合计).
SHARED = {"Total", "Hands", "bank"}
CODE_USE = re.compile(r"""\{%\s*(?:translate|trans)\s+["'](?P<t>[^"']+)["'](?P<rest>[^%]*)%\}"""
                      r"""|(?<![\w.])(?:gettext|gettext_lazy|_)\(\s*["'](?P<g>[^"']+)["']\s*\)""")


def context_faults(po_entries, sources: dict[str, str]) -> list[str]:
    wrong = [f"no context: {e.msgid!r}" for e in po_entries if e.msgid in SHARED and not e.msgctxt]
    for name, text in sources.items():
        for m in CODE_USE.finditer(text):
            word = m["t"] or m["g"]
            if word in SHARED and (m["g"] or "context" not in (m["rest"] or "")):
                wrong.append(f"{name}: {m[0]}")
    return wrong


def test_the_context_check_refuses_a_shared_word_without_its_meaning():
    bare = polib.POEntry(msgid="Total", msgstr="点数")
    assert context_faults([bare], {})
    assert context_faults([], {"t.html": '<th>{% translate "Total" %}</th>'})
    assert context_faults([], {"t.html": "<th>{% trans 'Hands' noop %}</th>"})
    assert context_faults([], {"a.js": 'text: gettext("bank") }'})
    assert context_faults([], {"a.py": 'label = _("Hands")'})
    assert not context_faults([polib.POEntry(msgid="Total", msgctxt="sum of a column", msgstr="合计")], {
        "t.html": '<th>{% translate "Total" context "sum of a column" %}</th>',
        "a.js": 'pgettext("badge of the banker\'s seat", "bank"); gettext("Bank %(n)s"); gettext("Total bet")',
    })


def test_every_word_of_two_meanings_has_its_context_in_the_catalogs_and_the_code():
    sources = {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8")
               for folder in ("templates", "games", "accounts", "wallets", "config", "static/js")
               for p in (ROOT / folder).rglob("*") if p.suffix in (".html", ".py", ".js") and p.is_file()}
    wrong = context_faults([e for code in LANGS for _d, e in entries(code)], sources)
    assert not wrong, wrong
    for code in LANGS:  # and the meanings read apart where the language words them apart
        by_context = {e.msgctxt: e.msgstr for _d, e in entries(code) if e.msgid == "Total"}
        assert set(by_context) == {"a hand's points", "sum of a column"}
    zh = {e.msgctxt: e.msgstr for _d, e in entries("zh-hans") if e.msgid == "Total"}
    assert zh == {"a hand's points": "点数", "sum of a column": "合计"}


# Django's and allauth's messages that a player reads, in the player's language: rendered through the pages.
def page_text(response) -> str:
    body = response.content.decode()
    body = re.sub(r"(?s)<(script|style)\b.*?</\1>", " ", body)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", body))


def error_texts(response) -> list[str]:
    found = re.findall(r'(?s)<ul class="errorlist[^"]*"[^>]*>(.*?)</ul>', response.content.decode())
    return [re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", f)).strip() for f in found]


@pytest.fixture
def fresh_limits():
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.mark.django_db
@pytest.mark.usefixtures("fresh_limits")
@pytest.mark.parametrize("code", LANGS)
def test_the_sign_up_and_log_in_errors_are_in_the_player_language(client, code):
    from django.urls import reverse

    signup = client.post(reverse("account_signup"), {"email": "mei@example.com", "username": "mei",
                                                      "password1": "q7z", "password2": "q7z"},
                         HTTP_ACCEPT_LANGUAGE=code)
    login = client.post(reverse("account_login"), {"login": "nobody", "password": "not-the-password-1"},
                        HTTP_ACCEPT_LANGUAGE=code)
    for response, english in ((signup, "This password is too short"), (login, "are not correct")):
        errors = error_texts(response)
        assert response.status_code == 200 and errors, response.content[:300]
        for text in errors:
            assert english not in text
            assert not ENGLISH.search(NOT_WORDS.sub(" ", text)), text
            if code == "zh-hans":
                assert CJK.search(text) and not chinese_punctuation_faults(text), text
            if code == "es":
                assert not USTED.search(text), text
    if code == "zh-hans":  # the labels too: Django's Chinese suffix was the ASCII colon
        labels = re.findall(r"<label for=\"id_[^\"]*\"[^>]*>([^<]+)</label>", signup.content.decode())
        assert len(labels) >= 4 and all(label.endswith("：") for label in labels), labels


@pytest.mark.django_db
@pytest.mark.usefixtures("fresh_limits")
def test_the_account_pages_speak_spanish_with_tu(client):
    from django.urls import reverse

    for name in ("account_login", "account_signup", "account_reset_password"):
        text = page_text(client.get(reverse(name), HTTP_ACCEPT_LANGUAGE="es"))
        assert "Contraseña" in text or "contraseña" in text
        assert not USTED.search(text), (name, USTED.search(text)[0], text[:400])


@pytest.mark.django_db
@pytest.mark.usefixtures("fresh_limits")
def test_the_account_e_mails_and_the_signed_in_pages_speak_spanish_with_tu(client, mailoutbox):
    from django.contrib.auth import get_user_model
    from django.urls import reverse

    user = get_user_model().objects.create_user("lola", "lola@example.com", "pw-long-enough-1", language="es")
    client.post(reverse("account_reset_password"), {"email": "lola@example.com"}, HTTP_ACCEPT_LANGUAGE="es")
    (mail,) = mailoutbox
    assert "contraseña" in mail.body
    assert not USTED.search(mail.subject + mail.body), USTED.search(mail.subject + mail.body)
    client.force_login(user)
    for name in ("account_logout", "account_email", "account_change_password"):
        text = page_text(client.get(reverse(name)))
        assert "Cerrar sesión" in text or "correo" in text or "contraseña" in text, name
        assert not USTED.search(text), (name, USTED.search(text)[0])
