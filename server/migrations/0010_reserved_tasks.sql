-- Reserved for parallel work; folded into one migration before landing.
SELECT 1;
