"""The static files' storage in production: WhiteNoise's compressed manifest, with the ES modules'
imports rewritten to the hashed names too. Without that, the board's entry module (hashed,
cached for a year) would import its modules by their plain names, and a page preloading the
hashed names would fetch each module twice."""

from whitenoise.storage import CompressedManifestStaticFilesStorage


class StaticStorage(CompressedManifestStaticFilesStorage):
    support_js_module_import_aggregation = True
