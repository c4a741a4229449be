"""The dealer-blind deal (protocol v3 and up): a deck nobody — the host included — can read
until every participant has given its key of a card's position.

The modules, in layers (each imports only those above it, and the shared modules of
:mod:`lanswitch.fairdeal`: ``primitives``, ``log``, ``setup``, ``forfeit``, ``judgement``,
``transcript``):

``crypto``     the formulas: card points, the lock and key passes, opening a position, a key
               sealed to one drawer, every pass recomputed from its seed, the group test
``positions``  the rules engine on hidden cards: a shuffle's positions stand in for its cards,
               turn-ups one at a time
``hand``       a hand's public record and its live checks (:class:`~.hand.Follower`), people
               leaving with their seeds
``holder``     one participant's secrets: its seeds, keys released to it, its cards, its own
               follower (:class:`~.holder.Holder`)
``seat``       what a participant owes after each public step, from its own record
               (:class:`~.seat.Participant`: the host's and every client's alike)
``check``      the check after the hand, every seed revealed: :class:`~.check.BlindOutcome`
               and its :class:`~lanswitch.fairdeal.judgement.Judgement`
``file``       a blind hand kept in a file, and checked again from it alone
               (``lanswitch verify``)
``local``      a whole blind hand in one process (the tests, the benchmarks, the vectors)

Nothing is re-exported here: an importer names the module it needs, so a reader loading the
group test alone (``crypto.point_problem``, the host's and a client's check of every point
received) does not load the rest. The theory of operation is at the top of each module;
``protocol/SPEC.md`` ("Dealer-blind") is the byte-exact reference.
"""
