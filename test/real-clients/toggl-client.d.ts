// toggl-client 3.5.0 ships no types; this declares the part of its surface the tests call, as its
// source (node_modules/toggl-client/lib/*.js) has it.
declare module "toggl-client" {
  /** The got instance the library builds in its constructor; every request goes through it. */
  export interface TogglHttpClient {
    /** got's extend: a prefix and, for the report methods' own prefix, an `init` hook that may rewrite it. */
    extend(options: { prefixUrl: string; hooks?: { init: ((init: { prefixUrl?: unknown }) => void)[] } }): TogglHttpClient;
  }

  export interface TogglUser {
    id: number;
    email: string;
    fullname: string;
    timezone: string;
    default_workspace_id: number | null;
    api_token: string;
    [field: string]: unknown;
  }

  export interface TogglWorkspace {
    id: number;
    name: string;
    [field: string]: unknown;
  }

  export interface TogglClientEntity {
    id: number;
    wid: number;
    name: string;
    [field: string]: unknown;
  }

  /** Any answered object (time entry, project, tag, project user, task, group, member). */
  export interface TogglEntity {
    id: number;
    [field: string]: unknown;
  }

  export interface TogglClient {
    httpClient: TogglHttpClient;
    user: {
      current(): Promise<TogglUser>;
      update(user: Record<string, unknown>): Promise<TogglUser>;
      resetToken(): Promise<string>;
    };
    workspaces: {
      list(): Promise<TogglWorkspace[]>;
      get(id: number): Promise<unknown>;
      update(id: number, workspace: Record<string, unknown>): Promise<unknown>;
      users(id: number): Promise<TogglEntity[]>;
      clients(workspaceId: number): Promise<TogglClientEntity[]>;
      groups(id: number): Promise<TogglEntity[]>;
      projects(id: number): Promise<TogglEntity[]>;
      tasks(id: number): Promise<TogglEntity[]>;
      tags(id: number): Promise<TogglEntity[]>;
    };
    reports: {
      summary(workspaceId: number, params: Record<string, unknown>): Promise<any>;
      details(workspaceId: number, params: Record<string, unknown>): Promise<any>;
      weekly(workspaceId: number, params: Record<string, unknown>): Promise<any>;
    };
    timeEntries: {
      list(query: Record<string, unknown>): Promise<TogglEntity[]>;
      create(entry: Record<string, unknown>): Promise<TogglEntity>;
      start(entry: Record<string, unknown>): Promise<TogglEntity>;
      stop(entry: { id: number; workspace_id: number }): Promise<TogglEntity>;
      get(id: number): Promise<TogglEntity | undefined>;
      current(): Promise<TogglEntity | null>;
      update(id: number, entry: Record<string, unknown>): Promise<TogglEntity>;
      delete(id: number): Promise<void>;
    };
    projects: {
      create(workspaceId: number, project: Record<string, unknown>): Promise<TogglEntity>;
      get(workspaceId: number, projectId: number): Promise<TogglEntity>;
      list(workspaceId: number): Promise<TogglEntity[]>;
      update(workspaceId: number, projectId: number, project: Record<string, unknown>): Promise<TogglEntity>;
      delete(workspaceId: number, projectId: number): Promise<void>;
      tasks(workspaceId: number, projectId: number): Promise<TogglEntity[]>;
    };
    projectUsers: {
      create(workspaceId: number, projectUser: Record<string, unknown>): Promise<TogglEntity>;
      get(workspaceId: number): Promise<TogglEntity[]>;
      update(workspaceId: number, projectUserId: number, projectUser: Record<string, unknown>): Promise<TogglEntity>;
      delete(workspaceId: number, projectUserId: number): Promise<void>;
    };
    tags: {
      create(workspaceId: number, tag: { name: string }): Promise<TogglEntity>;
      update(workspaceId: number, id: number, tag: { name: string }): Promise<TogglEntity>;
      delete(workspaceId: number, id: number): Promise<void>;
    };
    get(path: string, searchParams?: Record<string, unknown>): Promise<unknown>;
    post(path: string, json?: unknown): Promise<unknown>;
    put(path: string, json?: unknown): Promise<unknown>;
    delete(path: string): Promise<unknown>;
  }

  export default function connect(options: { apiToken: string }): TogglClient;
}
