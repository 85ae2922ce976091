"""A durable queue in SQLite (WAL, synchronous=FULL), kept only as the measured alternative to the
segment log (``python -m shardflow.edge.bench_queue``; docs/EDGE-QUEUE.md says why the log won)."""

from __future__ import annotations

import os
import sqlite3
from typing import List, Sequence, Tuple


class SqliteQueue:

    def __init__(self, directory: str):
        os.makedirs(directory, exist_ok=True)
        self._db = sqlite3.connect(os.path.join(directory, "queue.db"), isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("CREATE TABLE IF NOT EXISTS entries (seq INTEGER PRIMARY KEY AUTOINCREMENT, "
                         "time_ms INTEGER NOT NULL, key BLOB NOT NULL, value BLOB NOT NULL)")

    def append_many(self, entries: Sequence[Tuple[bytes, bytes]]) -> List[int]:
        cur = self._db.cursor()
        cur.execute("BEGIN IMMEDIATE")
        seqs = []
        for key, value in entries:
            cur.execute("INSERT INTO entries (time_ms, key, value) VALUES (0, ?, ?)", (key, value))
            seqs.append(cur.lastrowid)
        cur.execute("COMMIT")
        return seqs

    def append(self, key: bytes, value: bytes) -> int:
        return self.append_many([(key, value)])[0]

    def read_after(self, seq: int, limit: int) -> List[Tuple[int, bytes, bytes]]:
        return self._db.execute("SELECT seq, key, value FROM entries WHERE seq > ? ORDER BY seq LIMIT ?",
                                (seq, limit)).fetchall()

    def delete_through(self, seq: int) -> None:
        self._db.execute("DELETE FROM entries WHERE seq <= ?", (seq,))

    def pending(self) -> int:
        first, last = self._db.execute("SELECT min(seq), max(seq) FROM entries").fetchone()
        return 0 if first is None else last - first + 1

    def close(self) -> None:
        self._db.close()
