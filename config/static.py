"""What the site sends a browser besides its pages, made small: our own scripts and stylesheets minified when
collectstatic gathers them for production (then WhiteNoise hashes and compresses them, as before), and the
JavaScript translation catalog as compact JSON. docs/performance.md, "The table page's weight", has the figures."""

import json

import rcssmin
import rjsmin
from django.core.files.base import ContentFile
from django.http import HttpResponse
from django.template import Context, Engine
from django.views.i18n import JavaScriptCatalog, builtin_template_path
from whitenoise.storage import CompressedManifestStaticFilesStorage

# Our files (static/js, static/css); Django's admin and other apps' files are shipped as their authors made them.
OURS = ("js/", "css/")
MINIFIERS = {".js": rjsmin.jsmin, ".css": rcssmin.cssmin}


class MinifiedStaticFilesStorage(CompressedManifestStaticFilesStorage):
    """WhiteNoise's storage (hashed names cached for a year, gzip and Brotli copies) over minified copies of our
    scripts and stylesheets. The sources stay as written; DEBUG=1 serves them as they are."""

    def post_process(self, paths, dry_run=False, **options):
        if not dry_run:
            paths = dict(paths)
            for path in paths:
                minify = MINIFIERS.get(path[path.rfind("."):])
                if minify is not None and path.startswith(OURS):
                    with self.open(path) as f:
                        text = f.read().decode()
                    self.delete(path)
                    self._save(path, ContentFile(minify(text).encode()))
                    # The hashed copy is made from the file `paths` names: the minified one here, not the source.
                    paths[path] = (self, path)
        yield from super().post_process(paths, dry_run, **options)


class CompactJavaScriptCatalog(JavaScriptCatalog):
    """Django's catalog with its JSON compact and its text as UTF-8 (not \\u escapes): a Chinese catalog is half the
    size, and every language loses the indentation. `leave_out` names the message contexts (a context and those that
    start with it) whose strings only some pages use: the catalog of the others goes without them (the table loads no
    fair-deal check, static/js/fair-report.js, and a room without house rules none of their modules, static/js/house.js).
    `only` keeps those contexts alone: the part a page adds to its catalog when it needs it (the house rules')."""

    leave_out: tuple[str, ...] = ()
    only: tuple[str, ...] = ()

    def get_catalog(self):
        catalog = super().get_catalog()
        if self.leave_out:
            catalog = {key: value for key, value in catalog.items() if not key.startswith(self.leave_out)}
        if self.only:
            catalog = {key: value for key, value in catalog.items() if key.startswith(self.only)}
        return catalog

    def render_to_response(self, context, **response_kwargs):
        def compact(value):
            return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))

        context["catalog_str"] = compact(context["catalog"]) if context["catalog"] else None
        context["formats_str"] = compact(context["formats"])
        with builtin_template_path("i18n_catalog.js").open(encoding="utf-8") as fh:  # Django's own template
            template = Engine().from_string(fh.read())
        return HttpResponse(template.render(Context(context)), 'text/javascript; charset="utf-8"')
