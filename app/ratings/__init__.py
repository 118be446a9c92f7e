"""The club's ratings: a rating per member with its uncertainty, from every Gurka Night table
round and every online game whose seats are all known members, recomputed in order from the
stored results (`engine`: OpenSkill's Plackett-Luce; `sources`: the results read from the store)."""
