"""Web push: VAPID keys (`keys`), subscription checks (`endpoints`), the messages in the
reader's language (`messages`), the sender off the event loop (`sender`), and what sends:
"your turn" (`turns`) and the club's nights and date polls (`club`)."""
