"""The evidence store: every record that decides a result, kept immutable in SQLite and read by ``decide``.

``store`` (the SQLite table, paths, merged reading), ``keys`` (the hashes that make a record fresh or stale),
``records`` (record objects <-> store rows, and the evidence ``decide`` reads), ``shipped`` (the store shipped
as package data, rebuilt by ``convbound store rebuild-shipped``), ``campaign`` (gathers what the store lacks).
"""
