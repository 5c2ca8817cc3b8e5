-- Issue 40, eleventh round: a run's end and the claim of the next work in one call (src/store/postgres/
-- pg-settle-next.ts). errand_settle_run (0018) writes the end. When it settled, the pump's due-work read follows as a
-- statement of its own (so a fresh snapshot under READ COMMITTED, which sees the run just ended as no longer active):
-- the text of pg-task-statements.ts's DUE_WORK_SQL (readyConversationsSql, noActiveRun), with the ended run's
-- conversation as the pump's `prefer` and p_skip the conversations busy in the calling process besides it. Then, as
-- the pump's startNext would, errand_claim_task claims the first ready conversation's next task for the caller (its
-- own lock and active-run check, after which it reads what committed). Nothing is claimed while a waiting run is due
-- to resume: those go first, in the pump. `more`: a waiting run is due, more conversations are ready within p_limit
-- (the slots open once the ended run has left its own) than the one claimed, or the claim found nothing after all;
-- the pump then runs. errand_claim_task's EB001 ("conversation busy") rolls the whole call back, the end with it: the
-- caller settles alone and pumps.
create or replace function errand_settle_run_next(
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
  p_task_reason text,
  p_skip text[],
  p_limit integer,
  p_claim_run_id text,
  p_claim_owner text,
  p_claim_lease_until bigint,
  p_claim_generation integer
) returns json
language plpgsql
volatile
as $$
declare
  v_settled text;
  v_due boolean;
  v_here boolean;
  v_ready text[];
  v_count integer;
  v_target text;
  c json;
begin
  v_settled := errand_settle_run(p_run_id, p_owner, p_generation, p_from, p_to, p_summary, p_error, p_now,
    p_conversation_id, p_task_id, p_task_status, p_task_summary, p_task_reason);
  if v_settled <> 'settled' then
    return json_build_object('settled', v_settled, 'claimed', null, 'more', true);
  end if;
  select exists (select 1 from runs where status = 'waiting_user' and ask_expires_at <= p_now),
         exists (select 1 from tasks t where t.conversation_id = p_conversation_id and t.status = 'pending'
                    and t.blocked = false and t.not_before <= p_now
                    and not exists (select 1 from runs r where r.conversation_id = t.conversation_id
                                       and r.status in ('running', 'waiting_user') offset 0)),
         array (select t.conversation_id as id from tasks t where t.status = 'pending' and t.blocked = false
                   and t.not_before <= p_now
                   and t.conversation_id <> all(p_skip)
                   and not exists (select 1 from runs r where r.conversation_id = t.conversation_id
                                      and r.status in ('running', 'waiting_user') offset 0)
                   and not exists (select 1 from tasks e where e.conversation_id = t.conversation_id
                                      and e.status = 'pending' and e.blocked = false and e.not_before <= p_now
                                      and (e.not_before, e.id) < (t.not_before, t.id) offset 0)
                 order by t.not_before, t.conversation_id limit p_limit)
    into v_due, v_here, v_ready;
  if v_due then
    return json_build_object('settled', v_settled, 'claimed', null, 'more', true);
  end if;
  v_count := least(p_limit, (case when v_here then 1 else 0 end) + coalesce(cardinality(v_ready), 0));
  if v_count < 1 then
    return json_build_object('settled', v_settled, 'claimed', null, 'more', false);
  end if;
  v_target := case when v_here then p_conversation_id else v_ready[1] end;
  c := errand_claim_task(v_target, p_now, p_claim_run_id, p_claim_owner, p_claim_lease_until, p_claim_generation,
    true, true);
  return json_build_object('settled', v_settled, 'claimed', c, 'more', c is null or v_count > 1);
end
$$;
