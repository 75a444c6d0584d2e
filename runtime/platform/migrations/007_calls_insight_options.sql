-- A call's own insight options (keyword lists, script phrases, redaction, match score over or
-- instead of its tenant's settings), given with its submission and applied when its transcript
-- completes. NULL: the tenant's settings as they are.

ALTER TABLE calls ADD COLUMN insight_options jsonb;
