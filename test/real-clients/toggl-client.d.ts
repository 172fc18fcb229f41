// toggl-client 3.5.0 ships no types; this declares the part of its surface the tests call, as its
// source (node_modules/toggl-client/lib/*.js) has it.
declare module "toggl-client" {
  /** The got instance the library builds in its constructor; every request goes through it. */
  export interface TogglHttpClient {
    extend(options: { prefixUrl: string }): TogglHttpClient;
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

  export interface TogglClient {
    httpClient: TogglHttpClient;
    user: {
      current(): Promise<TogglUser>;
      update(user: Record<string, unknown>): Promise<TogglUser>;
      resetToken(): Promise<string>;
    };
    workspaces: {
      list(): Promise<TogglWorkspace[]>;
      clients(workspaceId: number): Promise<TogglClientEntity[]>;
    };
    get(path: string, searchParams?: Record<string, unknown>): Promise<unknown>;
    post(path: string, json?: unknown): Promise<unknown>;
    put(path: string, json?: unknown): Promise<unknown>;
    delete(path: string): Promise<unknown>;
  }

  export default function connect(options: { apiToken: string }): TogglClient;
}
