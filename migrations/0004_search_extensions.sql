-- Trigram matching for party names and case numbers in the search index (typos, other printed forms).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
