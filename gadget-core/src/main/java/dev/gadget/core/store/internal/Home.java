package dev.gadget.core.store.internal;

/**
 * Where a finished turn is kept: its whole record ({@code createTurn} with its blocks), {@code
 * length} bytes with the newline, at byte {@code offset} of journal {@code journal}.
 */
record Home(int journal, long offset, int length) {}
