-- Issue 40, sixth round: a mention's accept and a task's claim as one function call each (PostgreSQL only).
-- Inside a PL/pgSQL function every statement takes a fresh snapshot (READ COMMITTED), so a read after the
-- conversation's row lock sees what that lock's last holder committed, as the separate statements did.
-- The functions write the columns the store's own inserts write: a column added later to conversations, tasks, runs
-- or messages that a mention or a claim must set needs a new custom migration that replaces them.

-- Claims the conversation's next ready task: locks the conversation's row (unless the caller's transaction holds
-- it: p_lock false), finds no active run there (unless the caller just did, under that lock: p_check_active
-- false), marks the task in progress (attempts + 1), inserts its run (the partial unique index of active runs is
-- the arbiter: a second active run raises EB001, "conversation busy") and, on the task's first attempt, its goal
-- as the run's first transcript message (src/runs/goal-message.ts's text). Null: nothing ready, or a run is active.
CREATE OR REPLACE FUNCTION errand_claim_task(
  p_conversation_id text, p_now bigint, p_run_id text, p_owner text, p_lease_until bigint, p_generation integer,
  p_lock boolean, p_check_active boolean
) RETURNS json LANGUAGE plpgsql AS $$
DECLARE
  t tasks;
  r runs;
BEGIN
  IF p_lock THEN
    PERFORM 1 FROM conversations WHERE id = p_conversation_id FOR NO KEY UPDATE;
  END IF;
  IF p_check_active AND EXISTS (
    SELECT 1 FROM runs WHERE conversation_id = p_conversation_id AND status IN ('running', 'waiting_user')
  ) THEN
    RETURN NULL;
  END IF;
  UPDATE tasks SET status = 'in_progress', attempts = attempts + 1, started_at = p_now, updated_at = p_now
   WHERE id = (
     SELECT n.id FROM tasks n
      WHERE n.conversation_id = p_conversation_id AND n.status = 'pending' AND n.blocked = false
        AND n.not_before <= p_now
        AND NOT EXISTS (SELECT 1 FROM tasks b WHERE b.conversation_id = p_conversation_id AND b.status = 'in_progress')
      ORDER BY n.sequence LIMIT 1 FOR UPDATE SKIP LOCKED
   ) AND status = 'pending'
  RETURNING * INTO t;
  IF NOT FOUND THEN
    RETURN NULL;
  END IF;
  INSERT INTO runs (id, conversation_id, task_id, status, started_at, updated_at, principal, principal_roles,
                    owner, lease_until, lease_generation)
  VALUES (p_run_id, p_conversation_id, t.id, 'running', p_now, p_now, t.requested_by,
          CASE WHEN t.requested_by IS NOT NULL AND jsonb_typeof(t.requester_roles) = 'array'
                    AND jsonb_array_length(t.requester_roles) > 0 THEN t.requester_roles END,
          p_owner, p_lease_until, p_generation)
  ON CONFLICT DO NOTHING
  RETURNING * INTO r;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'a run is active in conversation % already', p_conversation_id USING ERRCODE = 'EB001';
  END IF;
  IF t.attempts = 1 THEN
    INSERT INTO messages (conversation_id, run_id, role, content, author_id, platform_message_id, images, created_at)
    VALUES (p_conversation_id, r.id, 'user',
            CASE t.created_by
              WHEN 'schedule' THEN '[Scheduled prompt' || coalesce(' #' || t.schedule_id, '') || '] ' || t.description
              WHEN 'agent' THEN '[To-do #' || t.id || '] ' || t.title
                                || CASE WHEN t.description = t.title THEN '' ELSE E'\n\n' || t.description END
              ELSE t.description
            END,
            t.requested_by, t.source_message_id,
            CASE WHEN jsonb_typeof(t.images) = 'array' AND jsonb_array_length(t.images) > 0 THEN t.images END,
            p_now);
  END IF;
  RETURN json_build_object('task', row_to_json(t), 'run', row_to_json(r));
END;
$$;
--> statement-breakpoint
-- Accepts a mention, as a transaction of its own: its de-duplication record (p_key null: recorded before, when its
-- thread was opened; a redelivery returns 'duplicate' and writes nothing), the conversation's upsert (which locks
-- its row), the active run read under that lock, the task, and its claim when p_claim and no run is active
-- (errand_claim_task). Where a run waits for an answer the message may be that answer: it raises EB002, so the
-- statement rolls back and the caller decides with its separate statements.
CREATE OR REPLACE FUNCTION errand_accept_mention(
  p_key text, p_now bigint,
  p_conversation_id text, p_platform text, p_workspace text, p_channel text, p_thread text, p_timezone text,
  p_title text, p_description text, p_requested_by text, p_requester_roles jsonb, p_source_message_id text,
  p_claim boolean, p_run_id text, p_owner text, p_lease_until bigint, p_generation integer
) RETURNS json LANGUAGE plpgsql AS $$
DECLARE
  a runs;
  t tasks;
  c json;
BEGIN
  IF p_key IS NOT NULL THEN
    INSERT INTO processed_events (key, received_at) VALUES (p_key, p_now) ON CONFLICT DO NOTHING;
    IF NOT FOUND THEN
      RETURN json_build_object('kind', 'duplicate');
    END IF;
  END IF;
  INSERT INTO conversations (id, platform, workspace, channel, thread, timezone, created_at, updated_at)
  VALUES (p_conversation_id, p_platform, p_workspace, p_channel, p_thread, p_timezone, p_now, p_now)
  ON CONFLICT (id) DO UPDATE SET timezone = coalesce(excluded.timezone, conversations.timezone), updated_at = p_now;
  SELECT * INTO a FROM runs WHERE conversation_id = p_conversation_id AND status IN ('running', 'waiting_user');
  IF FOUND AND a.status = 'waiting_user' THEN
    RAISE EXCEPTION 'a run waits for an answer in conversation %', p_conversation_id USING ERRCODE = 'EB002';
  END IF;
  INSERT INTO tasks (conversation_id, title, description, sequence, blocked_by, created_by, requested_by,
                     requester_roles, from_schedule, source_message_id, created_at, updated_at)
  VALUES (p_conversation_id, p_title, p_description,
          (SELECT coalesce(max(sequence), 0) + 1 FROM tasks WHERE conversation_id = p_conversation_id),
          '[]'::jsonb, 'user', p_requested_by, p_requester_roles, false, p_source_message_id, p_now, p_now)
  RETURNING * INTO t;
  IF p_claim AND a.id IS NULL THEN
    c := errand_claim_task(p_conversation_id, p_now, p_run_id, p_owner, p_lease_until, p_generation, false, false);
  END IF;
  RETURN json_build_object('kind', 'task', 'task', row_to_json(t),
                           'active', CASE WHEN a.id IS NULL THEN NULL ELSE row_to_json(a) END, 'claimed', c);
END;
$$;
