# Django groups Spanish thousands with a no-break space; browsers (Intl.NumberFormat, CLDR) with a dot. The table's
# scripts format with Intl, so the pages do the same: 12.345.
THOUSAND_SEPARATOR = "."
