"""The table: home and room pages, the rules pages, the room websocket and table rendering."""
