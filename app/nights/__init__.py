"""What happens to a stored night: the club's use cases.

`app.club` decides (pure), `app.store` keeps (tables and queries), `app.web.club` shows; this
package changes a stored night, one change at a time. `recording`: a table's result taken from
its phone or typed by hand, taken back, corrected; each locks the night, loads it, checks what
was sent, lets the club core decide, stores, and says how it went with a typed outcome that the
pages and the table phones turn into their answers. `result_form`: a table's result from the
fields a form or a phone sends. `words`: a night's slots and results in the reader's words.
"""
