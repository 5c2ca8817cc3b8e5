-- Issue 40: a run's settlement in one call (src/store/postgres/pg-run-settle.ts). Each statement of a PL/pgSQL
-- function takes a fresh snapshot under READ COMMITTED, so what is read after the conversation's lock sees what
-- the lock's previous holder committed (a task added meanwhile that names the settling task as its blocker).
-- Answers 'settled' (the run ended, its task finished while it was in progress), 'unchanged' (the fence holds
-- but the run was no longer in one of p_from) or 'fenced' (another owner or generation holds the run).
create or replace function errand_settle_run(
  p_run_id text,
  p_owner text,
  p_generation integer,
  p_from text[],
  p_to text,
  p_summary text,
  p_error text,
  p_now bigint,
  p_conversation_id text,
  p_task_id integer,
  p_task_status text,
  p_task_summary text,
  p_task_reason text
) returns text
language plpgsql
volatile
as $$
begin
  -- The run's final transition, fenced as fencedTransitionRun: the update locks the row as `holds` would.
  update runs
     set status = p_to,
         summary = coalesce(p_summary, runs.summary),
         error = coalesce(p_error, runs.error),
         updated_at = p_now,
         ended_at = p_now,
         question = null,
         ask_expires_at = null
   where runs.id = p_run_id
     and runs.status = any(p_from)
     and runs.owner is not distinct from p_owner
     and runs.lease_generation = p_generation;
  if not found then
    -- Which one: the fence (as RunStore.holds), or the run's status.
    perform 1 from runs
      where runs.id = p_run_id and runs.owner is not distinct from p_owner and runs.lease_generation = p_generation
      for no key update;
    if found then
      return 'unchanged';
    end if;
    return 'fenced';
  end if;
  if p_task_id is null then
    return 'settled';
  end if;
  -- The conversation's lock orders this with claims and task edits there (pg-task-store.ts).
  perform 1 from conversations where conversations.id = p_conversation_id for no key update;
  update tasks
     set status = p_task_status,
         result_summary = coalesce(p_task_summary, tasks.result_summary),
         fail_reason = coalesce(p_task_reason, tasks.fail_reason),
         updated_at = p_now,
         finished_at = p_now
   where tasks.id = p_task_id
     and tasks.conversation_id = p_conversation_id
     and tasks.status = 'in_progress';
  if not found then
    return 'settled';
  end if;
  -- The `blocked` flags as queue-rules.ts's blockedChanges: a pending task is blocked while any blocker of its
  -- conversation exists and has not completed. Only when a pending task names a blocker or is blocked.
  if exists (
    select 1 from tasks o
     where o.conversation_id = p_conversation_id and o.status = 'pending' and (o.blocked or o.blocked_by <> '[]'::jsonb)
  ) then
    update tasks t
       set blocked = n.blocked, updated_at = p_now
      from (
        select p.id,
               exists (
                 select 1 from tasks b
                  where b.conversation_id = p_conversation_id and b.status <> 'completed' and p.blocked_by @> to_jsonb(b.id)
               ) as blocked
          from tasks p
         where p.conversation_id = p_conversation_id and p.status = 'pending'
      ) n
     where t.id = n.id and t.blocked <> n.blocked;
  end if;
  return 'settled';
end
$$;
