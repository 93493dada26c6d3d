"""The results derived over the whole database, brought up to date by one step each
(docs/design.md, "Derived results")."""
