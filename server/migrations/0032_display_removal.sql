-- A revoked wall screen can be taken off the « Écrans » list (issue 22): the application role may delete a display of
-- its tenant (row-level security keeps it there); the route refuses one that is not revoked. Its pairings go with it.
GRANT DELETE ON displays TO vigie_app;
