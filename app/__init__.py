"""Gurka online: play Gurka with your club, run Gurka Night, keep the Hall of Fame."""
