import type { AllMiddlewareArgs, App, SlackEventMiddlewareArgs } from '@slack/bolt';

/** What a route gets: Bolt's arguments for an event of that type. */
export type EventRouteArgs<T extends string> = SlackEventMiddlewareArgs<T> & AllMiddlewareArgs;

/** Where each module of the adapter puts its handler for an Events API type. */
export interface EventRoutes {
  on<T extends string>(type: T, route: (args: EventRouteArgs<T>) => Promise<void>): void;
}

/**
 * Every Events API type the adapter handles goes through one Bolt listener that picks the routes
 * by `event.type`. Bolt runs the middleware of every registered listener for every request it
 * receives, most of them the bot's own posts coming back as `message` events, so each listener
 * costs on all traffic; one listener pays that once.
 */
export function createEventRoutes(app: App): EventRoutes {
  const routes = new Map<string, ((args: EventRouteArgs<string>) => Promise<void>)[]>();
  app.event(/.*/, async (args) => {
    const found = routes.get(args.event.type);
    if (found) await Promise.all(found.map((route) => route(args)));
  });
  return {
    on(type, route) {
      routes.set(type, [...(routes.get(type) ?? []), route as (args: EventRouteArgs<string>) => Promise<void>]);
    },
  };
}
