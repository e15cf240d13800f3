import * as vscode from 'vscode';

/**
 * The Agents view's provider from activation on: empty until the real tree is attached (when the
 * workspace is trusted), so that until then the view shows its welcome. The view is created once.
 */
export class LateTreeProvider<T> implements vscode.TreeDataProvider<T>, vscode.Disposable {
  private provider: vscode.TreeDataProvider<T> | undefined;
  private subscription: vscode.Disposable | undefined;
  private readonly emitter = new vscode.EventEmitter<T | T[] | undefined | null | void>();
  readonly onDidChangeTreeData = this.emitter.event;

  attach(provider: vscode.TreeDataProvider<T>): void {
    this.subscription?.dispose();
    this.provider = provider;
    this.subscription = provider.onDidChangeTreeData?.((e) => this.emitter.fire(e));
    this.emitter.fire();
  }

  getTreeItem(node: T): vscode.TreeItem | Thenable<vscode.TreeItem> {
    // VS Code asks for items only of nodes a provider returned, so the provider is there.
    return this.provider!.getTreeItem(node);
  }

  resolveTreeItem(
    item: vscode.TreeItem,
    node: T,
    token: vscode.CancellationToken,
  ): vscode.ProviderResult<vscode.TreeItem> {
    return this.provider?.resolveTreeItem ? this.provider.resolveTreeItem(item, node, token) : item;
  }

  getChildren(node?: T): vscode.ProviderResult<T[]> {
    return this.provider ? this.provider.getChildren(node) : [];
  }

  getParent(node: T): vscode.ProviderResult<T> {
    return this.provider?.getParent?.(node);
  }

  dispose(): void {
    this.subscription?.dispose();
    this.emitter.dispose();
  }
}
