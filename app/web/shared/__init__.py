"""What the table and the club share: security (origins, seat cookies), templates and the
app's long-lived objects (the room manager)."""
