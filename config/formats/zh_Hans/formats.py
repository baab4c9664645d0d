# Django leaves Chinese numbers ungrouped (groups of four, no separator); browsers (Intl.NumberFormat, CLDR) group
# by three with a comma. The table's scripts format with Intl, so the pages do the same: 12,345.
THOUSAND_SEPARATOR = ","
NUMBER_GROUPING = 3
