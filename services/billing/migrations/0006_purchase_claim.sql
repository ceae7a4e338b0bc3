-- A purchase's claim on its load_id in one round trip (it took five: BEGIN, the user's lock, the
-- read, the write, COMMIT), with the charge request it will send stored at once (it took a sixth).
-- The user's lock serializes their purchases, so "another purchase is under way" (100031) holds
-- under concurrency: each statement of a volatile function reads with a fresh snapshot, so the read
-- after the lock sees every claim committed by the one who held it before; the lock goes with the
-- calling statement's transaction.
--   kind: claimed (payment_id, and the charge request an earlier attempt kept when taking one over),
--         done (outcome), mismatch (another body under this load_id), busy (someone holds it),
--         other_in_progress (another of the user's purchases is under way).
CREATE FUNCTION claim_purchase(
  p_user_id bigint,
  p_load_id text,
  p_request_hash text,
  p_payment_id bigint,
  p_lease interval,
  p_request jsonb,
  p_charge_request jsonb
) RETURNS TABLE (kind text, payment_id bigint, charge_request jsonb, outcome jsonb) LANGUAGE plpgsql AS $$
DECLARE
  existing purchases%ROWTYPE;
BEGIN
  PERFORM pg_advisory_xact_lock(2, hashtext(p_user_id::text));
  SELECT * INTO existing FROM purchases p WHERE p.user_id = p_user_id AND p.load_id = p_load_id;
  IF NOT FOUND THEN
    IF EXISTS (SELECT 1 FROM purchases o WHERE o.user_id = p_user_id AND o.load_id <> p_load_id AND o.state = 'pending'
               AND o.lease_until > now()) THEN
      RETURN QUERY SELECT 'other_in_progress'::text, NULL::bigint, NULL::jsonb, NULL::jsonb;
      RETURN;
    END IF;
    INSERT INTO purchases (user_id, load_id, request_hash, state, payment_id, lease_until, request, charge_request)
      VALUES (p_user_id, p_load_id, p_request_hash, 'pending', p_payment_id, now() + p_lease, p_request, p_charge_request);
    RETURN QUERY SELECT 'claimed'::text, p_payment_id, NULL::jsonb, NULL::jsonb;
    RETURN;
  END IF;
  IF existing.request_hash <> p_request_hash THEN
    RETURN QUERY SELECT 'mismatch'::text, NULL::bigint, NULL::jsonb, NULL::jsonb;
    RETURN;
  END IF;
  IF existing.state <> 'pending' THEN
    RETURN QUERY SELECT 'done'::text, NULL::bigint, NULL::jsonb, existing.outcome;
    RETURN;
  END IF;
  UPDATE purchases p SET lease_until = now() + p_lease
    WHERE p.user_id = p_user_id AND p.load_id = p_load_id AND p.lease_until <= now();
  IF FOUND THEN
    RETURN QUERY SELECT 'claimed'::text, existing.payment_id, existing.charge_request, NULL::jsonb;
  ELSE
    RETURN QUERY SELECT 'busy'::text, NULL::bigint, NULL::jsonb, NULL::jsonb;
  END IF;
END $$;
